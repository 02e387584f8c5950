package io.weir.config;

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
        AggregateStep.Emit emit = section.choice("emit", AggregateStep.Emit.EVERY_UPDATE);
        section.rejectUnknownKeys();

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
                        emit));
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
