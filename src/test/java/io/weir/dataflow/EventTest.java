package io.weir.dataflow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.operators.Codecs;
import io.weir.operators.Json;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A value read is written as the bytes it came in, until a step gives the event a new value. */
class EventTest {
    private static final byte[] AS_READ = "{ \"user\" : \"u1\",  \"amount\": 5 }".getBytes(StandardCharsets.UTF_8);

    private static Event read() {
        return new Event(
                RecordKey.ofBytes(null, Codecs.JSON), Json.decode(AS_READ), 7, List.of(), AS_READ, Codecs.JSON);
    }

    @Test
    void anUnchangedValueIsWrittenAsTheBytesItWasReadAs() {
        assertArrayEquals(AS_READ, read().valueIn(Codecs.JSON));
        assertArrayEquals(AS_READ, read().withTimestamp(9).valueIn(Codecs.JSON), "a new timestamp keeps the value");
    }

    @Test
    void aNewValueOrAnotherFormatIsEncoded() {
        Event changed = read().withValue(Map.of("user", "u1"));
        assertEquals("{\"user\":\"u1\"}", new String(changed.valueIn(Codecs.JSON), StandardCharsets.UTF_8));
        assertEquals(
                "{\"user\":\"u1\",\"amount\":5}",
                new String(read().valueIn(Codecs.STRING), StandardCharsets.UTF_8),
                "the string format writes the value's JSON text, not the bytes as read");
    }
}
