package io.weir.operators;

import static io.weir.operators.JsonDecoder.invalid;

import io.weir.dataflow.BadRecordException;
import java.nio.charset.StandardCharsets;

/**
 * The value of a JSON number whose text {@link JsonDecoder} has read: a {@code Long} when it is an
 * integer, refused beyond 64 bits, else a {@code Double}; longer numbers than Jackson reads are
 * refused.
 */
final class JsonNumbers {
    private JsonNumbers() {}

    /**
     * The number in {@code in} from {@code start} to {@code end}, which has a leading '-' if {@code
     * negative} and no fraction or exponent if {@code integer}.
     */
    static Object value(byte[] in, int start, int end, boolean negative, boolean integer) {
        int length = end - start;
        int digits = 0; // as Jackson counts a number's length: its digits only
        for (int i = start; i < end; i++) {
            if (in[i] >= '0' && in[i] <= '9') {
                digits++;
            }
        }
        if (digits > JsonDecoder.MAX_NUMBER_LENGTH) {
            throw invalid("a number of " + digits + " digits (at most " + JsonDecoder.MAX_NUMBER_LENGTH + ") at offset "
                    + start);
        }
        if (!integer) {
            return Double.parseDouble(new String(in, start, length, StandardCharsets.ISO_8859_1));
        }
        // Summed negatively, so that Long.MIN_VALUE fits.
        long value = 0;
        for (int i = negative ? start + 1 : start; i < end; i++) {
            int digit = in[i] - '0';
            if (value < (Long.MIN_VALUE + digit) / 10) {
                throw new BadRecordException("value has an integer beyond 64 bits: "
                        + JsonDecoder.abbreviate(new String(in, start, length, StandardCharsets.ISO_8859_1))
                        + " at offset "
                        + start);
            }
            value = value * 10 - digit;
        }
        if (!negative) {
            if (value == Long.MIN_VALUE) {
                throw new BadRecordException("value has an integer beyond 64 bits: "
                        + new String(in, start, length, StandardCharsets.ISO_8859_1) + " at offset " + start);
            }
            value = -value;
        }
        return value;
    }
}
