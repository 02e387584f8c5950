package io.weir.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The keys the loader knows, section by section, and the name rules shared by several records.
 * Binding may only read keys listed here, and every other key of a section is reported as
 * unknown; the JSON schema test compares the schema with this list so that the two cannot drift.
 * A step type's section is listed as {@code pipeline.<type>}; {@code pipeline.route} is one case
 * of a route, whose sinks are {@code pipeline.sink} sections.
 */
final class ConfigShape {

    /** Names that become group ids, transactional ids and topic prefixes. */
    static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]+");

    /** Kafka's rule for topic names. */
    /** A Kafka topic name: Kafka's characters and length, and not "." or "..", which it refuses. */
    static final Pattern TOPIC = Pattern.compile("(?!\\.{1,2}$)[a-zA-Z0-9._-]{1,249}");

    /** Longest application name, leaving room for suffixes within Kafka's 249-character topics. */
    static final int MAX_NAME_LENGTH = 200;

    /** The pipeline's step types, in the order error messages list them. */
    static final List<String> STEP_TYPES = List.of(
            "source", "filter", "map", "key-by", "dedupe", "join", "lookup", "aggregate", "process", "route", "sink");

    /**
     * Step types written with a CEL expression as their value ({@code - filter: "..."}); those
     * also listed in {@link #SECTIONS} (key-by) may be a mapping of settings instead.
     */
    static final Set<String> EXPRESSION_STEPS = Set.of("filter", "key-by");

    /** Maps whose keys are Kafka property names, so that a dotted --set path ends at them. */
    static final Set<String> PROPERTY_MAPS =
            Set.of("kafka.properties", "kafka.consumer", "kafka.producer", "kafka.admin");

    static final Map<String, List<String>> SECTIONS = sections();

    private ConfigShape() {}

    private static Map<String, List<String>> sections() {
        Map<String, List<String>> sections = new LinkedHashMap<>();
        sections.put(
                "", List.of("application", "instance-id", "kafka", "processing", "dead-letter", "http", "pipeline"));
        sections.put(
                "kafka", List.of("bootstrap", "properties", "consumer", "producer", "admin", "replication-factor"));
        sections.put(
                "processing",
                List.of(
                        "guarantee",
                        "threads",
                        "channel-capacity",
                        "auto-offset-reset",
                        "transaction-timeout",
                        "plugins",
                        "standby",
                        "checkpoint",
                        "restart",
                        "state"));
        sections.put("processing.checkpoint", List.of("interval", "timeout", "max-concurrent", "min-pause"));
        sections.put(
                "processing.restart",
                List.of(
                        "strategy",
                        "initial-backoff",
                        "max-backoff",
                        "multiplier",
                        "jitter",
                        "attempts",
                        "delay",
                        "max-failures",
                        "failure-window"));
        sections.put("processing.state", List.of("backend", "dir", "snapshots", "snapshot-dir", "retain", "rocksdb"));
        sections.put("processing.state.rocksdb", List.of("block-cache", "write-buffer", "cached-writes"));
        sections.put("dead-letter", List.of("topic", "oversized"));
        sections.put("http", List.of("port"));
        sections.put("pipeline.source", List.of("topic", "format", "key-format", "timestamp", "watermark"));
        sections.put("pipeline.source.watermark", List.of("max-out-of-orderness", "idle-after"));
        sections.put("pipeline.map", List.of("set", "drop", "value"));
        sections.put("pipeline.key-by", List.of("by", "partitions"));
        sections.put("pipeline.dedupe", List.of("by", "within"));
        sections.put("pipeline.join", List.of("with", "within", "type", "as"));
        sections.put("pipeline.join.with", List.of("topic", "format", "key-format", "timestamp"));
        sections.put("pipeline.lookup", List.of("table", "as", "type"));
        sections.put("pipeline.lookup.table", List.of("topic", "format", "key-format", "timestamp"));
        sections.put(
                "pipeline.aggregate",
                List.of(
                        "by",
                        "key-as",
                        "window",
                        "lateness",
                        "late",
                        "count",
                        "sum",
                        "min",
                        "max",
                        "avg",
                        "first",
                        "last",
                        "emit"));
        sections.put("pipeline.aggregate.window", List.of("tumbling", "hopping", "session"));
        sections.put("pipeline.aggregate.window.hopping", List.of("size", "advance"));
        sections.put("pipeline.aggregate.window.session", List.of("gap"));
        sections.put("pipeline.aggregate.late", List.of("topic"));
        sections.put("pipeline.process", List.of("class", "with"));
        sections.put("pipeline.route", List.of("when", "sink", "default"));
        sections.put("pipeline.sink", List.of("topic", "format", "key-format", "key"));
        return java.util.Collections.unmodifiableMap(sections);
    }

    /** The keys of the section at {@code shapePath}; a missing one is a bug in the loader. */
    static List<String> keys(String shapePath) {
        List<String> keys = SECTIONS.get(shapePath);
        if (keys == null) {
            throw new IllegalStateException("no section " + shapePath + " in ConfigShape");
        }
        return keys;
    }

    /** The name a configuration file uses for an enum constant: EXACTLY_ONCE is exactly-once. */
    static String nameOf(Enum<?> constant) {
        return constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
