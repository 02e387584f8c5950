package io.weir.ops;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Keeps the exposition within Prometheus's naming rules, as {@code promtool check metrics} checks
 * them: drops the few binder meters named with abbreviated units (Kafka's start time and commitSync
 * time in ms/ns, the process CPU time in ns) or as a gauge ending in "count" (Kafka's connection
 * count) or per broker connection (a {@code node_id} label), gives the Kafka meters that have no
 * description one (HELP text), and names the CPU count gauge {@code system.cpu.cores}. Weir's own
 * meters follow the rules by their names.
 */
final class PrometheusNamingRules implements MeterFilter {
    private static final Set<String> ABBREVIATED_UNITS = Set.of("ms", "ns", "us");

    @Override
    public MeterFilterReply accept(Meter.Id id) {
        String name = id.getName();
        boolean abbreviated = Stream.of(name.split("\\.")).anyMatch(ABBREVIATED_UNITS::contains)
                || (id.getBaseUnit() != null && ABBREVIATED_UNITS.contains(id.getBaseUnit()));
        boolean countGauge = name.startsWith("kafka.") && name.endsWith(".count");
        // Per broker connection (node_id): a label beyond the exposition's set, and series that come
        // and go with the client's connections.
        // (Micrometer's binder names the tag node.id; Prometheus's format writes node_id.)
        boolean perNode = name.startsWith("kafka.") && (id.getTag("node.id") != null || id.getTag("node_id") != null);
        return abbreviated || countGauge || perNode ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        if (id.getName().equals("system.cpu.count")) {
            return id.withName("system.cpu.cores");
        }
        if (id.getName().startsWith("kafka.")
                && (id.getDescription() == null || id.getDescription().isBlank())) {
            // Some of Kafka's client metrics have no description, and a family without HELP text
            // fails promtool check metrics (the binder adds them at its refresh, a minute in).
            return new Meter.Id(
                    id.getName(),
                    Tags.of(id.getTagsAsIterable()),
                    id.getBaseUnit(),
                    "Kafka client metric " + id.getName(),
                    id.getType());
        }
        return id;
    }
}
