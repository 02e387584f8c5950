package io.weir.config;

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
 * input field (any JSON value, like {@code last}). {@code emit} says when results are sent; only after
 * every update for now. Output field names are unique and at least one aggregate is asked for.
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
        Emit emit)
        implements OperatorStep {

    /** When an aggregate sends its results. */
    public enum Emit {
        EVERY_UPDATE
    }

    public static final String DEFAULT_KEY_AS = "key";

    public AggregateStep {
        Objects.requireNonNull(keyAs, "keyAs");
        Objects.requireNonNull(count, "count");
        Objects.requireNonNull(emit, "emit");
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
        for (String field : outputFields(keyAs, count, List.of(sum, min, max, avg, first, last))) {
            if (field.isBlank()) {
                throw new IllegalArgumentException("output field names must not be empty");
            }
            if (!seen.add(field)) {
                throw new IllegalArgumentException("output field " + field + " is written twice");
            }
        }
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
        return outputFields(keyAs, count, List.of(sum, min, max, avg, first, last));
    }

    /** Whether the aggregate reads fields of the values, which must then be JSON objects. */
    public boolean readsFields() {
        return !(sum.isEmpty() && min.isEmpty() && max.isEmpty() && avg.isEmpty() && first.isEmpty() && last.isEmpty());
    }

    private static List<String> outputFields(String keyAs, Optional<String> count, List<Map<String, String>> maps) {
        List<String> fields = new ArrayList<>();
        fields.add(keyAs);
        count.ifPresent(fields::add);
        maps.forEach(map -> fields.addAll(map.values()));
        return fields;
    }

    private static Map<String, String> copy(Map<String, String> map) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(map)));
    }
}
