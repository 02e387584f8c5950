package io.weir.ops;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.config.MeterFilterReply;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Keeps the exposition within Prometheus's naming rules, as {@code promtool check metrics} checks
 * them: drops the few binder meters named with abbreviated units (Kafka's start time and commitSync
 * time in ms/ns, the process CPU time in ns) or as a gauge ending in "count" (Kafka's connection
 * count), and names the CPU count gauge {@code system.cpu.cores}. Weir's own meters follow the rules
 * by their names.
 */
final class PrometheusNamingRules implements MeterFilter {
    private static final Set<String> ABBREVIATED_UNITS = Set.of("ms", "ns", "us");

    @Override
    public MeterFilterReply accept(Meter.Id id) {
        String name = id.getName();
        boolean abbreviated = Stream.of(name.split("\\.")).anyMatch(ABBREVIATED_UNITS::contains)
                || (id.getBaseUnit() != null && ABBREVIATED_UNITS.contains(id.getBaseUnit()));
        boolean countGauge = name.startsWith("kafka.") && name.endsWith(".count");
        return abbreviated || countGauge ? MeterFilterReply.DENY : MeterFilterReply.NEUTRAL;
    }

    @Override
    public Meter.Id map(Meter.Id id) {
        return id.getName().equals("system.cpu.count") ? id.withName("system.cpu.cores") : id;
    }
}
