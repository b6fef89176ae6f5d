/**
 * What the model providers share, and nothing else uses: their {@link dev.efferent.model.http.ModelSettings},
 * {@link dev.efferent.model.http.ModelHttp} (one POST with retries on 429, 5xx and an unreachable server, a deadline
 * on the whole answer, size limits, failures in plain words) and a reader of server-sent events.
 */
package dev.efferent.model.http;
