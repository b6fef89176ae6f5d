package dev.efferent.brain;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.Status;

/** What a REST resource answers: a status and a JSON body. */
record Answer(Status status, JsonNode body) {
}
