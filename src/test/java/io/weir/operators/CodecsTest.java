package io.weir.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.dataflow.BadRecordException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The formats at a stage's edges: what they refuse, and how they name it. */
class CodecsTest {
    @Test
    void textThatIsNotUtf8IsRefusedNotReplaced() {
        BadRecordException e =
                assertThrows(BadRecordException.class, () -> Codecs.STRING.decode(new byte[] {'a', (byte) 0xff, 'b'}));
        assertEquals("value is not valid UTF-8 text: malformed byte 0xff at offset 1", e.getMessage());
        assertEquals("día", Codecs.STRING.decode("día".getBytes(StandardCharsets.UTF_8)), "UTF-8 beyond ASCII");
        assertEquals("plain", Codecs.STRING.decode("plain".getBytes(StandardCharsets.US_ASCII)));
        assertThrows(BadRecordException.class, () -> Codecs.STRING.decode(new byte[] {(byte) 0xc3}), "cut short");
    }

    @Test
    void aKeyThatCannotBeDecodedIsNamedAsTheKey() {
        BadRecordException json = assertThrows(
                BadRecordException.class, () -> Codecs.JSON.decodeKey("notjson".getBytes(StandardCharsets.UTF_8)));
        assertTrue(json.getMessage().startsWith("key is not valid JSON"), json.getMessage());
    }

    @Test
    void aTextKeyOfBytesThatAreNotUtf8IsKeptAsTextAsBinarySerializersWriteThem() {
        // An int key of 200 is 00 00 00 C8: not UTF-8, yet a key to group by as before.
        assertEquals("\u0000\u0000\u0000\uFFFD", Codecs.STRING.decodeKey(new byte[] {0, 0, 0, (byte) 0xc8}));
        assertEquals("\uFFFD", Codecs.STRING.decode("\uFFFD".getBytes(StandardCharsets.UTF_8)), "the character itself");
    }
}
