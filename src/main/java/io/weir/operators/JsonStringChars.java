package io.weir.operators;

import static io.weir.operators.JsonDecoder.invalid;

/**
 * The characters of a JSON string that {@link JsonDecoder} does not copy byte for byte: a backslash
 * escape, or a character of two to four bytes of UTF-8. Each reads one from the buffer at an offset
 * and returns the offset after it.
 */
final class JsonStringChars {
    private JsonStringChars() {}

    /** The escape whose backslash is at {@code pos}, appended to {@code text}; returns the offset after it. */
    static int escape(byte[] in, int pos, StringBuilder text) {
        int at = pos++;
        if (pos == in.length) {
            throw invalid("a string not closed at the end of the text");
        }
        byte b = in[pos++];
        switch (b) {
            case '"' -> text.append('"');
            case '\\' -> text.append('\\');
            case '/' -> text.append('/');
            case 'b' -> text.append('\b');
            case 'f' -> text.append('\f');
            case 'n' -> text.append('\n');
            case 'r' -> text.append('\r');
            case 't' -> text.append('\t');
            case 'u' -> {
                int c = 0;
                for (int i = 0; i < 4; i++, pos++) {
                    int h = pos < in.length ? Character.digit(in[pos], 16) : -1;
                    if (h < 0) {
                        throw invalid("a \\u escape without four hex digits at offset " + at);
                    }
                    c = c * 16 + h;
                }
                text.append((char) c);
            }
            default -> throw invalid("an unknown escape at offset " + at);
        }
        return pos;
    }

    /**
     * One character of two to four bytes of UTF-8 (RFC 3629: no overlong form, no surrogate), its lead
     * byte at {@code pos}, appended to {@code text}; returns the offset after it.
     */
    static int utf8(byte[] in, int pos, StringBuilder text) {
        int at = pos;
        int lead = in[pos++] & 0xFF;
        int count;
        int min;
        int max = 0xBF;
        int c;
        if (lead >= 0xC2 && lead <= 0xDF) {
            count = 1;
            c = lead & 0x1F;
            min = 0x80;
        } else if (lead >= 0xE0 && lead <= 0xEF) {
            count = 2;
            c = lead & 0x0F;
            min = lead == 0xE0 ? 0xA0 : 0x80;
            max = lead == 0xED ? 0x9F : 0xBF;
        } else if (lead >= 0xF0 && lead <= 0xF4) {
            count = 3;
            c = lead & 0x07;
            min = lead == 0xF0 ? 0x90 : 0x80;
            max = lead == 0xF4 ? 0x8F : 0xBF;
        } else {
            throw invalid("malformed UTF-8 (byte 0x" + Integer.toHexString(lead) + ") at offset " + at);
        }
        for (int i = 0; i < count; i++, pos++) {
            int next = pos < in.length ? in[pos] & 0xFF : -1;
            if (next < min || next > max) {
                throw invalid("malformed UTF-8 at offset " + at);
            }
            c = (c << 6) | (next & 0x3F);
            min = 0x80;
            max = 0xBF;
        }
        text.appendCodePoint(c);
        return pos;
    }
}
