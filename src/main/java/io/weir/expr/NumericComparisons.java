package io.weir.expr;

import com.google.common.primitives.UnsignedLong;
import dev.cel.runtime.CelFunctionBinding;
import dev.cel.runtime.CelStandardFunctions;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The comparisons ({@code < <= > >=}) of a double with an int or a uint, in place of the CEL
 * library's: those order NaN above every number ({@code Double.compare}), so {@code 0.0 / 0.0 >
 * 10} held. Here, as between two doubles and as IEEE 754 and CEL's language definition say, every
 * comparison with NaN is false; an int is compared exactly (not as the nearest double). -0.0 stays
 * below an int or uint 0, as the library's equality of the two, which this leaves alone, says
 * they differ: of {@code <}, {@code ==} and {@code >} exactly one holds.
 */
final class NumericComparisons {
    private NumericComparisons() {}

    private record Operator(String name, IntPredicate holds) {}

    private static final List<Operator> OPERATORS = List.of(
            new Operator("LESS", c -> c < 0),
            new Operator("LESS_EQUALS", c -> c <= 0),
            new Operator("GREATER", c -> c > 0),
            new Operator("GREATER_EQUALS", c -> c >= 0));

    private static final Set<String> PAIRS = Set.of("DOUBLE_INT64", "INT64_DOUBLE", "DOUBLE_UINT64", "UINT64_DOUBLE");

    /** CEL's standard functions without the comparisons {@link #bindings} replace. */
    static CelStandardFunctions standardFunctions() {
        return CelStandardFunctions.newBuilder()
                .filterFunctions((function, overload) -> !(overload instanceof Enum<?> e && replaced(e.name())))
                .build();
    }

    private static boolean replaced(String overload) {
        for (Operator op : OPERATORS) {
            if (overload.startsWith(op.name() + "_")
                    && PAIRS.contains(overload.substring(op.name().length() + 1))) {
                return true;
            }
        }
        return false;
    }

    /** The replacements, under the library's overload ids ({@code greater_double_int64} …). */
    static List<CelFunctionBinding> bindings() {
        List<CelFunctionBinding> bindings = new ArrayList<>();
        for (Operator op : OPERATORS) {
            String id = op.name().toLowerCase(Locale.ROOT);
            IntPredicate holds = op.holds();
            bindings.add(CelFunctionBinding.from(
                    id + "_double_int64", Double.class, Long.class, (d, l) -> !d.isNaN() && holds.test(compare(d, l))));
            bindings.add(CelFunctionBinding.from(
                    id + "_int64_double",
                    Long.class,
                    Double.class,
                    (l, d) -> !d.isNaN() && holds.test(-compare(d, l))));
            bindings.add(CelFunctionBinding.from(
                    id + "_double_uint64",
                    Double.class,
                    UnsignedLong.class,
                    (d, u) -> !d.isNaN() && holds.test(compare(d, u))));
            bindings.add(CelFunctionBinding.from(
                    id + "_uint64_double",
                    UnsignedLong.class,
                    Double.class,
                    (u, d) -> !d.isNaN() && holds.test(-compare(d, u))));
        }
        return bindings;
    }

    /** The order of a double that is not NaN and a long, exactly. */
    static int compare(double d, long l) {
        if (d < -0x1p63) {
            return -1;
        }
        if (d >= 0x1p63) {
            return 1;
        }
        double nearest = l;
        if (d != nearest) {
            return d < nearest ? -1 : 1;
        }
        if (d == 0 && l == 0) {
            return signOfZero(d);
        }
        // Equal as doubles: d is then a whole number within the long range, so (long) d is exact.
        return Long.compare((long) d, l);
    }

    /** The order of a double that is not NaN and an unsigned long, exactly. */
    static int compare(double d, UnsignedLong u) {
        if (d < 0) {
            return -1;
        }
        if (d >= 0x1p64) {
            return 1;
        }
        double nearest = u.doubleValue();
        if (d != nearest) {
            return d < nearest ? -1 : 1;
        }
        if (d == 0) {
            return signOfZero(d);
        }
        return new BigDecimal(d).compareTo(new BigDecimal(u.bigIntegerValue()));
    }

    /** -1 for -0.0, 0 for 0.0: the library's equality calls them different from an int 0. */
    private static int signOfZero(double zero) {
        return Double.doubleToRawLongBits(zero) < 0 ? -1 : 0;
    }
}
