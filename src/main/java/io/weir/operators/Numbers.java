package io.weir.operators;

import io.weir.dataflow.BadRecordException;

/**
 * Arithmetic on the numbers of the value model ({@code Long} and {@code Double}): integer sums stay
 * exact or are refused, and comparisons across the two types are by value.
 */
final class Numbers {
    private Numbers() {}

    /** {@code sum + v}; integers stay exact, and an integer overflow is a bad record. */
    static Object add(Object sum, Object v, String field) {
        if (sum == null) {
            return v;
        }
        if (sum instanceof Long a && v instanceof Long b) {
            long r = a + b;
            if (((a ^ r) & (b ^ r)) < 0) {
                throw new BadRecordException("the sum of field '" + field + "' would overflow 64-bit integers: " + a
                        + " + " + b + "; it is kept exact, so this record is refused");
            }
            return r;
        }
        return toDouble(sum) + toDouble(v);
    }

    /** {@code sum + v} for averages: exact while it fits, floating point beyond (an average is a double). */
    static Object addOrWiden(Object sum, Object v) {
        if (sum == null) {
            return v;
        }
        if (sum instanceof Long a && v instanceof Long b) {
            long r = a + b;
            if (((a ^ r) & (b ^ r)) >= 0) {
                return r;
            }
        }
        return toDouble(sum) + toDouble(v);
    }

    static double toDouble(Object n) {
        return ((Number) n).doubleValue();
    }

    static int compare(Object a, Object b) {
        if (a instanceof Long x && b instanceof Long y) {
            return Long.compare(x, y);
        }
        if (a instanceof Long x && b instanceof Double y) {
            return -compareDoubleLong(y, x);
        }
        if (a instanceof Double x && b instanceof Long y) {
            return compareDoubleLong(x, y);
        }
        return Double.compare(toDouble(a), toDouble(b));
    }

    private static int compareDoubleLong(double d, long l) {
        int c = Double.compare(d, (double) l);
        if (c != 0 || Double.isNaN(d)) {
            return c;
        }
        // Equal as doubles: compare exactly via BigDecimal (rare path).
        return new java.math.BigDecimal(d).compareTo(java.math.BigDecimal.valueOf(l));
    }
}
