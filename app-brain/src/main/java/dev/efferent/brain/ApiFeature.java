package dev.efferent.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.efferent.approvals.Approvals;
import dev.efferent.conversations.ChatService;
import dev.efferent.router.Router;
import dev.efferent.scheduler.Scheduler;
import io.helidon.webserver.http.HttpRouting;

/** The REST API at {@code /api/v1} ({@link ApiService}). */
final class ApiFeature implements BrainFeature {
    private final Router router;
    private final ChatService chat;
    private final Approvals approvals;
    private final Scheduler scheduler;
    private final BearerToken apiToken;
    private final ObjectMapper json;

    ApiFeature(Router router, ChatService chat, Approvals approvals, Scheduler scheduler, BearerToken apiToken,
               ObjectMapper json) {
        this.scheduler = scheduler;
        this.router = router;
        this.chat = chat;
        this.approvals = approvals;
        this.apiToken = apiToken;
        this.json = json;
    }

    @Override
    public void http(HttpRouting.Builder routing) {
        routing.register("/api/v1", new ApiService(router, chat, approvals, scheduler, apiToken, json));
    }
}
