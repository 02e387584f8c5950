package io.weir.api;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The mapper behind {@link Record#valueAsJson()}: one per class loader, thread-safe once built. */
final class JsonHolder {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonHolder() {}
}
