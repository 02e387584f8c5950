package io.weir.operators;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.weir.state.Serde;
import java.io.IOException;

/**
 * The state values of custom operators: JSON through Jackson, so records, POJOs, strings, numbers
 * and maps all work. Integers read into {@code Object} are {@code Long} (as in the value model), and
 * fields a class no longer has are skipped, so a processor whose state class lost a field still
 * reads the state it wrote before.
 *
 * <p>A value Jackson cannot write or read throws {@link IllegalArgumentException} naming the type:
 * it is the operator's fault, and the record goes to the dead-letter topic.
 */
final class JsonStateSerde<T> implements Serde<T> {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_LONG_FOR_INTS)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private final Class<T> type;
    private final String state;

    /** @param state the state's name, for messages */
    JsonStateSerde(Class<T> type, String state) {
        this.type = type;
        this.state = state;
    }

    @Override
    public byte[] serialize(T value) {
        if (value == null) {
            throw new IllegalArgumentException("state '" + state + "' cannot hold null");
        }
        if (!type.isInstance(value)) {
            throw new IllegalArgumentException("state '" + state + "' holds " + type.getName() + ", was given a "
                    + value.getClass().getName());
        }
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "state '" + state + "' cannot store a " + value.getClass().getName() + " as JSON: "
                            + e.getMessage(),
                    e);
        }
    }

    @Override
    public T deserialize(byte[] bytes) {
        try {
            return MAPPER.readValue(bytes, type);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "state '" + state + "' cannot be read as " + type.getName() + ": " + e.getMessage(), e);
        }
    }
}
