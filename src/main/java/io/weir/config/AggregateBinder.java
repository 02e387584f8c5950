package io.weir.config;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Binds an {@code aggregate} step to an {@link AggregateStep}, reporting at their positions the
 * mistakes the record would refuse: grouping by anything but the key (the current one: after a
 * {@code key-by} that is the new key), no aggregate at all, empty names, and two aggregates
 * writing the same output field.
 */
final class AggregateBinder {

    private static final List<String> WINDOWS = List.of("tumbling", "hopping", "session");

    private static final List<String> AGGREGATES = List.of("sum", "min", "max", "avg", "first", "last");

    private AggregateBinder() {}

    static Optional<AggregateStep> bind(Section section) {
        int mark = section.errors().size();
        section.optionalString("by")
                .filter(by -> !by.strip().equals("key"))
                .ifPresent(by -> section.error(
                        section.originOf("by"),
                        section.path("by") + " must be key (group by the "
                                + "record key), was " + by + "; to group by something else, re-key first with a "
                                + "key-by step"));
        String keyAs = section.string("key-as", AggregateStep.DEFAULT_KEY_AS);
        Optional<String> count = section.optionalString("count");
        Map<String, List<Section.StringEntry>> aggregates = new LinkedHashMap<>();
        for (String aggregate : AGGREGATES) {
            aggregates.put(aggregate, section.stringEntries(aggregate));
        }
        Optional<AggregateStep.Window> window = window(section);
        boolean windowed = section.node("window").isPresent();
        Duration lateness = section.duration("lateness", Duration.ZERO, true);
        Optional<String> lateTopic = late(section);
        AggregateStep.Emit emit =
                section.choice("emit", windowed ? AggregateStep.Emit.ON_CLOSE : AggregateStep.Emit.EVERY_UPDATE);
        section.rejectUnknownKeys();
        if (!windowed) {
            for (String key : List.of("lateness", "late")) {
                section.node(key)
                        .ifPresent(node -> section.error(
                                node.origin(),
                                section.path(key) + " needs a window (window: { tumbling: 1m }); a running "
                                        + "aggregate has no windows to be late for"));
            }
            if (emit == AggregateStep.Emit.ON_CLOSE) {
                section.error(
                        section.originOf("emit"),
                        section.path("emit") + " on-close needs a window (window: { tumbling: 1m }); without"
                                + " one, results are sent on every update");
            }
        }

        if (count.isEmpty() && aggregates.values().stream().allMatch(List::isEmpty)) {
            section.error(
                    section.origin(),
                    section.path() + " needs at least one of count, " + String.join(", ", AGGREGATES) + ", was none");
        }
        Map<String, String> writers = new LinkedHashMap<>();
        String keyLabel = section.node("key-as").isPresent()
                ? section.path("key-as")
                : section.path("key-as") + " (default " + AggregateStep.DEFAULT_KEY_AS + ")";
        claim(section, writers, keyAs, keyLabel, section.originOf("key-as"));
        if (windowed) {
            for (String field : AggregateStep.WINDOW_FIELDS) {
                claim(section, writers, field, section.path("window") + " (" + field + ")", section.originOf("window"));
            }
        }
        count.ifPresent(field -> claim(section, writers, field, section.path("count"), section.originOf("count")));
        aggregates.forEach((aggregate, entries) -> {
            for (Section.StringEntry entry : entries) {
                String label = section.path(aggregate) + "." + entry.key();
                if (entry.key().isBlank()) {
                    section.error(
                            entry.keyOrigin(),
                            section.path(aggregate)
                                    + " has an empty input field name; expected input-field: output-field");
                }
                claim(section, writers, entry.value(), label, entry.valueOrigin());
            }
        });
        return section.build(
                mark,
                () -> new AggregateStep(
                        keyAs,
                        count,
                        map(aggregates.get("sum")),
                        map(aggregates.get("min")),
                        map(aggregates.get("max")),
                        map(aggregates.get("avg")),
                        map(aggregates.get("first")),
                        map(aggregates.get("last")),
                        emit,
                        window,
                        lateness,
                        lateTopic));
    }

    /** {@code window: { tumbling: <d> } | { hopping: { size, advance } } | { session: { gap } }}. */
    private static Optional<AggregateStep.Window> window(Section section) {
        if (section.node("window").isEmpty()) {
            return Optional.empty();
        }
        Section window = section.section("window");
        List<String> given =
                WINDOWS.stream().filter(kind -> window.node(kind).isPresent()).toList();
        window.rejectUnknownKeys();
        if (given.size() != 1) {
            window.error(
                    window.origin(),
                    window.path() + " must give exactly one of tumbling: <duration>, hopping: { size, advance }, "
                            + "session: { gap }, was " + (given.isEmpty() ? "none" : String.join(" and ", given)));
            return Optional.empty();
        }
        int mark = section.errors().size();
        switch (given.get(0)) {
            case "tumbling": {
                Duration size = window.duration("tumbling", Duration.ZERO, false);
                return window.build(mark, () -> AggregateStep.Window.tumbling(size));
            }
            case "hopping": {
                Section hopping = window.section("hopping");
                Duration size = required(hopping, "size", "the length of each window, such as 1m");
                Duration advance = required(hopping, "advance", "how far each window starts after the one before");
                hopping.rejectUnknownKeys();
                if (!section.errors().grewSince(mark) && advance.compareTo(size) > 0) {
                    hopping.error(
                            hopping.originOf("advance"),
                            hopping.path("advance") + " must be at most " + hopping.path("size") + " ("
                                    + DurationFormat.format(size) + "), was " + DurationFormat.format(advance)
                                    + "; windows would leave gaps");
                }
                return hopping.build(mark, () -> AggregateStep.Window.hopping(size, advance));
            }
            default: {
                Section session = window.section("session");
                Duration gap = required(
                        session,
                        "gap",
                        "how long a key may go without records before its session" + " closes, such as 30m");
                session.rejectUnknownKeys();
                return session.build(mark, () -> AggregateStep.Window.session(gap));
            }
        }
    }

    private static Duration required(Section section, String key, String what) {
        if (section.node(key).isEmpty()) {
            section.error(section.originOf(key), section.path(key) + " is required: " + what);
            return Duration.ZERO;
        }
        return section.duration(key, Duration.ZERO, false);
    }

    /** {@code late: { topic: <name> }}: where late records go instead of the dead-letter topic. */
    private static Optional<String> late(Section section) {
        if (section.node("late").isEmpty()) {
            return Optional.empty();
        }
        Section late = section.section("late");
        Optional<String> topic = late.matching(
                "topic",
                late.requiredString("topic", "the topic late records are written to"),
                ConfigShape.TOPIC,
                249,
                SinkBinder.TOPIC_RULE);
        late.rejectUnknownKeys();
        return topic;
    }

    /** Records that {@code label} writes output {@code field}, reporting a clash or a blank. */
    private static void claim(Section section, Map<String, String> writers, String field, String label, Origin origin) {
        if (field.isBlank()) {
            section.error(origin, label + " must name an output field, was empty");
            return;
        }
        String earlier = writers.putIfAbsent(field, label);
        if (earlier != null) {
            section.error(
                    origin,
                    label + " writes output field " + field + ", which " + earlier
                            + " already writes; output field names must be unique");
        }
    }

    private static Map<String, String> map(List<Section.StringEntry> entries) {
        Map<String, String> map = new LinkedHashMap<>();
        entries.forEach(entry -> map.put(entry.key(), entry.value()));
        return map;
    }
}
