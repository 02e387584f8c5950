package io.weir.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Running aggregates per record key. Each output record is a JSON object holding the key in the
 * field {@code keyAs}, the number of records in {@code count} (if named), and for each entry
 * {@code input -> output} of {@code sum}, {@code min}, {@code max}, {@code avg}, {@code first} and {@code last}
 * that aggregate of the numeric input field, and for {@code first} the earliest value of the
 * input field (any JSON value, like {@code last}). {@code emit} says when results are sent. Output
 * field names are unique and at least one aggregate is asked for.
 *
 * <p>With a {@code window} the aggregates are per key and event-time window, and the output also
 * holds {@code windowStart} and {@code windowEnd}; a window closes once the watermark passes its end
 * plus {@code lateness}, and a record whose windows all closed goes to {@code lateTopic} (absent:
 * the dead-letter topic). {@code on-close} (the default with a window) sends one result per key
 * and window at its close; {@code every-update} (the only choice without a window) one per record.
 */
public record AggregateStep(
        String keyAs,
        Optional<String> count,
        Map<String, String> sum,
        Map<String, String> min,
        Map<String, String> max,
        Map<String, String> avg,
        Map<String, String> first,
        Map<String, String> last,
        Emit emit,
        Optional<Window> window,
        Duration lateness,
        Optional<String> lateTopic)
        implements OperatorStep {

    /** When an aggregate sends its results. */
    public enum Emit {
        ON_CLOSE,
        EVERY_UPDATE
    }

    /** The window types. */
    public enum WindowKind {
        TUMBLING,
        HOPPING,
        SESSION
    }

    /**
     * {@code window: { tumbling: 10s }}, {@code { hopping: { size, advance } }} or
     * {@code { session: { gap } }}: {@code size} and {@code advance} are set for fixed windows
     * (equal for tumbling ones), {@code gap} for sessions; the others are zero.
     */
    public record Window(WindowKind kind, Duration size, Duration advance, Duration gap) {
        public Window {
            Objects.requireNonNull(kind, "kind");
            if (kind == WindowKind.SESSION
                    ? !positive(gap)
                    : !positive(size) || !positive(advance) || advance.compareTo(size) > 0) {
                throw new IllegalArgumentException(
                        "a window needs a positive size and an advance of at most the size, or a positive gap");
            }
        }

        private static boolean positive(Duration d) {
            return d != null && !d.isZero() && !d.isNegative();
        }

        public static Window tumbling(Duration size) {
            return new Window(WindowKind.TUMBLING, size, size, Duration.ZERO);
        }

        public static Window hopping(Duration size, Duration advance) {
            return new Window(WindowKind.HOPPING, size, advance, Duration.ZERO);
        }

        public static Window session(Duration gap) {
            return new Window(WindowKind.SESSION, Duration.ZERO, Duration.ZERO, gap);
        }
    }

    /** The fields a windowed aggregate adds after the key. */
    public static final List<String> WINDOW_FIELDS = List.of("windowStart", "windowEnd");

    public static final String DEFAULT_KEY_AS = "key";

    public AggregateStep {
        Objects.requireNonNull(keyAs, "keyAs");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(emit, "emit");
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(lateness, "lateness");
        Objects.requireNonNull(lateTopic, "lateTopic");
        if (window.isEmpty() && (emit == Emit.ON_CLOSE || !lateness.isZero() || lateTopic.isPresent())) {
            throw new IllegalArgumentException("emit on-close, lateness and late need a window");
        }
        if (lateness.isNegative()) {
            throw new IllegalArgumentException("lateness must not be negative");
        }
        sum = copy(sum);
        min = copy(min);
        max = copy(max);
        avg = copy(avg);
        first = copy(first);
        last = copy(last);
        if (count.isEmpty()
                && sum.isEmpty()
                && min.isEmpty()
                && max.isEmpty()
                && avg.isEmpty()
                && first.isEmpty()
                && last.isEmpty()) {
            throw new IllegalArgumentException(
                    "an aggregate needs at least one of count, sum, min, max, avg, first, last");
        }
        Set<String> seen = new HashSet<>();
        for (String field : outputFields(keyAs, window, count, List.of(sum, min, max, avg, first, last))) {
            if (field.isBlank()) {
                throw new IllegalArgumentException("output field names must not be empty");
            }
            if (!seen.add(field)) {
                throw new IllegalArgumentException("output field " + field + " is written twice");
            }
        }
    }

    /** A running aggregate: no window. */
    public AggregateStep(
            String keyAs,
            Optional<String> count,
            Map<String, String> sum,
            Map<String, String> min,
            Map<String, String> max,
            Map<String, String> avg,
            Map<String, String> first,
            Map<String, String> last,
            Emit emit) {
        this(keyAs, count, sum, min, max, avg, first, last, emit, Optional.empty(), Duration.ZERO, Optional.empty());
    }

    /** An aggregate without {@code first}, as before it existed. */
    public AggregateStep(
            String keyAs,
            Optional<String> count,
            Map<String, String> sum,
            Map<String, String> min,
            Map<String, String> max,
            Map<String, String> avg,
            Map<String, String> last,
            Emit emit) {
        this(keyAs, count, sum, min, max, avg, Map.of(), last, emit);
    }

    @Override
    public String type() {
        return "aggregate";
    }

    /**
     * The output record's fields in order: the key, the count, then sum, min, max, avg, first,
     * last.
     */
    public List<String> outputFields() {
        return outputFields(keyAs, window, count, List.of(sum, min, max, avg, first, last));
    }

    /** Whether the aggregate reads fields of the values, which must then be JSON objects. */
    public boolean readsFields() {
        return !(sum.isEmpty() && min.isEmpty() && max.isEmpty() && avg.isEmpty() && first.isEmpty() && last.isEmpty());
    }

    private static List<String> outputFields(
            String keyAs, Optional<Window> window, Optional<String> count, List<Map<String, String>> maps) {
        List<String> fields = new ArrayList<>();
        fields.add(keyAs);
        if (window.isPresent()) {
            fields.addAll(WINDOW_FIELDS);
        }
        count.ifPresent(fields::add);
        maps.forEach(map -> fields.addAll(map.values()));
        return fields;
    }

    private static Map<String, String> copy(Map<String, String> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(map)));
    }
}
