package io.weir.config;

import io.weir.logging.Secrets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Binds the top level of the file to a {@link WeirConfig}: the application name, the instance
 * id, the kafka, dead-letter and http sections, and the processing section and pipeline through
 * their own binders. It refuses Kafka client properties that Weir sets itself, since overriding
 * them would break its guarantees, and checks that the dead-letter topic is not one the pipeline
 * uses.
 */
final class ConfigBinder {

    private static final String NAME_RULE =
            "made of a-z, A-Z, 0-9, '.', '_' and '-' (at most " + ConfigShape.MAX_NAME_LENGTH + " characters)";

    /** Client properties Weir sets itself, with what to do instead. */
    private static final Map<String, String> MANAGED_PROPERTIES = managedProperties();

    private final Supplier<String> hostName;

    /** A client property as given, with its path in the file ({@code kafka.consumer.acks}). */
    private record ClientSetting(String path, Section.StringEntry entry) {}

    ConfigBinder(Supplier<String> hostName) {
        this.hostName = hostName;
    }

    Optional<WeirConfig> bind(Section root) {
        int mark = root.errors().size();
        Optional<String> application = root.matching(
                "application",
                root.requiredString(
                        "application", "the job's name, used as group id, transactional id and topic prefix"),
                ConfigShape.NAME,
                ConfigShape.MAX_NAME_LENGTH,
                NAME_RULE);
        Optional<String> instanceId = root.matching(
                "instance-id",
                root.optionalString("instance-id"),
                ConfigShape.NAME,
                Integer.MAX_VALUE,
                NAME_RULE.substring(0, NAME_RULE.indexOf(" (")));
        Optional<ProcessingConfig> processing = ProcessingBinder.bind(root.section("processing"));
        Optional<KafkaConfig> kafka = kafka(root.section("kafka"), processing.map(ProcessingConfig::guarantee));
        Section deadLetterSection = root.section("dead-letter");
        int beforeDeadLetter = root.errors().size();
        Optional<String> deadLetter = deadLetterSection.matching(
                "topic", deadLetterSection.optionalString("topic"), ConfigShape.TOPIC, 249, PipelineBinder.TOPIC_RULE);
        DeadLetterConfig.Oversized oversized =
                deadLetterSection.choice("oversized", DeadLetterConfig.Oversized.TRUNCATE);
        deadLetterSection.rejectUnknownKeys();
        boolean deadLetterValid = !root.errors().grewSince(beforeDeadLetter);
        Section httpSection = root.section("http");
        int port = httpSection.integer("port", HttpConfig.DEFAULT_PORT, HttpConfig.DISABLED, 65535);
        httpSection.rejectUnknownKeys();
        Optional<String> defaultDeadLetter = deadLetter.isEmpty() && deadLetterValid
                ? application.map(DeadLetterConfig::defaultTopic)
                : Optional.empty();
        Optional<Pipeline> pipeline = PipelineBinder.bind(root, defaultDeadLetter);
        root.rejectUnknownKeys();

        if (pipeline.isPresent()
                && deadLetter.isPresent()
                && PipelineBinder.topics(pipeline.get()).contains(deadLetter.get())) {
            deadLetterSection.error(
                    deadLetterSection.originOf("topic"),
                    "dead-letter.topic must " + "differ from the pipeline's topics, was " + deadLetter.get());
        } else if (pipeline.isPresent() && deadLetter.isPresent() && application.isPresent()) {
            int keyBys = (int) pipeline.get().operators().stream()
                    .filter(KeyByStep.class::isInstance)
                    .count();
            if (PipelineBinder.ownTopics(application.get(), keyBys).contains(deadLetter.get())) {
                deadLetterSection.error(
                        deadLetterSection.originOf("topic"),
                        "dead-letter.topic must differ from the topics Weir keeps for this job itself (its "
                                + "repartition, checkpoint and snapshot topics), was " + deadLetter.get());
            }
        }
        return root.build(
                mark,
                () -> new WeirConfig(
                        application.orElseThrow(),
                        instanceId.orElseGet(this::defaultInstanceId),
                        kafka.orElseThrow(),
                        processing.orElseThrow(),
                        new DeadLetterConfig(
                                deadLetter.orElse(DeadLetterConfig.defaultTopic(application.get())), oversized),
                        new HttpConfig(port),
                        pipeline.orElseThrow()));
    }

    private String defaultInstanceId() {
        String name = hostName.get();
        String cleaned = name == null ? "" : name.replaceAll("[^a-zA-Z0-9._-]", "-");
        return cleaned.isEmpty() ? "weir" : cleaned;
    }

    private static Optional<KafkaConfig> kafka(Section section, Optional<ProcessingConfig.Guarantee> guarantee) {
        int mark = section.errors().size();
        String bootstrap =
                section.string("bootstrap", KafkaConfig.DEFAULT_BOOTSTRAP).strip();
        boolean emptied = section.rawScalar("bootstrap")
                .map(given -> given.isNull() && given.text().isEmpty())
                .orElse(false);
        if (bootstrap.isEmpty() || emptied) {
            section.error(
                    section.originOf("bootstrap"),
                    section.path("bootstrap") + " must not be empty: expected a comma-separated list of host:port, "
                            + "or leave the key out for " + KafkaConfig.DEFAULT_BOOTSTRAP);
        } else if (!bootstrap.matches("[^\\s,]+:\\d+(\\s*,\\s*[^\\s,]+:\\d+)*")) {
            section.error(
                    section.originOf("bootstrap"),
                    section.path("bootstrap") + " must be a " + "comma-separated list of host:port, was " + bootstrap);
        }
        Map<String, ClientSetting> effectiveProducer = new LinkedHashMap<>();
        Map<String, ClientSetting> effectiveConsumer = new LinkedHashMap<>();
        Map<String, String> properties = properties(section, "properties", effectiveProducer, effectiveConsumer);
        Map<String, String> consumer = properties(section, "consumer", new LinkedHashMap<>(), effectiveConsumer);
        Map<String, String> producer = properties(section, "producer", effectiveProducer, new LinkedHashMap<>());
        Map<String, String> admin = properties(section, "admin", new LinkedHashMap<>(), new LinkedHashMap<>());
        int replication = section.integer("replication-factor", KafkaConfig.BROKER_DEFAULT, 1, Short.MAX_VALUE);
        section.rejectUnknownKeys();
        if (guarantee.orElse(null) == ProcessingConfig.Guarantee.EXACTLY_ONCE) {
            effectiveProducer.values().forEach(setting -> KafkaPropertyRules.exactlyOnceProblem(
                            setting.entry().key(), setting.entry().value())
                    .ifPresent(
                            problem -> section.error(setting.entry().valueOrigin(), setting.path() + " " + problem)));
        }
        heartbeatBelowSessionTimeout(section, effectiveConsumer);
        return section.build(
                mark, () -> new KafkaConfig(bootstrap, properties, consumer, producer, admin, replication));
    }

    /**
     * The source consumer's heartbeat interval must be below its session timeout (the client
     * refuses to start otherwise), with Weir's defaults for the one not given.
     */
    private static void heartbeatBelowSessionTimeout(Section section, Map<String, ClientSetting> consumer) {
        ClientSetting heartbeat = consumer.get("heartbeat.interval.ms");
        ClientSetting session = consumer.get("session.timeout.ms");
        if (heartbeat == null && session == null) {
            return;
        }
        long interval;
        long timeout;
        try {
            interval = heartbeat == null
                    ? KafkaConfig.SOURCE_HEARTBEAT_INTERVAL_MS
                    : Long.parseLong(heartbeat.entry().value().strip());
            timeout = session == null
                    ? KafkaConfig.SOURCE_SESSION_TIMEOUT_MS
                    : Long.parseLong(session.entry().value().strip());
        } catch (NumberFormatException e) {
            return; // reported as a value the client would refuse
        }
        if (interval >= timeout) {
            ClientSetting at = heartbeat != null ? heartbeat : session;
            section.error(
                    at.entry().valueOrigin(),
                    at.path() + " must keep heartbeat.interval.ms (" + interval + ") below session.timeout.ms ("
                            + timeout + "), which the consumer needs: it sends several heartbeats per session"
                            + " timeout");
        }
    }

    /**
     * The property map at {@code key}, each value checked as its Kafka clients would; its valid
     * entries are put into {@code producerView} and {@code consumerView} (the views of the clients
     * that get them), later maps replacing earlier ones.
     */
    private static Map<String, String> properties(
            Section section,
            String key,
            Map<String, ClientSetting> producerView,
            Map<String, ClientSetting> consumerView) {
        List<Section.StringEntry> entries = section.stringEntries(key);
        Map<String, String> properties = new LinkedHashMap<>();
        for (Section.StringEntry entry : entries) {
            String path = section.path(key) + "." + entry.key();
            String instead = MANAGED_PROPERTIES.get(entry.key());
            if (instead != null) {
                section.error(entry.keyOrigin(), path + " is set by Weir and cannot be configured: " + instead);
            } else {
                Optional<String> problem = KafkaPropertyRules.problem(key, entry.key(), entry.value());
                problem.ifPresent(why -> section.error(
                        entry.valueOrigin(),
                        path + " is not valid, was "
                                + Secrets.printable(entry.key(), entry.value().strip()) + "; "
                                + (Secrets.isSecret(entry.key())
                                        ? why.replace(entry.value().strip(), Secrets.MASK)
                                        : why)));
                if (problem.isEmpty()) {
                    producerView.put(entry.key(), new ClientSetting(path, entry));
                    consumerView.put(entry.key(), new ClientSetting(path, entry));
                }
            }
            properties.put(entry.key(), entry.value());
        }
        return properties;
    }

    private static Map<String, String> managedProperties() {
        Map<String, String> managed = new LinkedHashMap<>();
        managed.put("bootstrap.servers", "set kafka.bootstrap instead");
        managed.put("group.id", "the consumer group is the application name");
        managed.put("transactional.id", "it is derived from application and instance-id");
        managed.put("enable.auto.commit", "Weir commits offsets with its checkpoints");
        managed.put("isolation.level", "it follows processing.guarantee");
        managed.put("transaction.timeout.ms", "set processing.transaction-timeout instead");
        managed.put("auto.offset.reset", "set processing.auto-offset-reset instead");
        managed.put("group.instance.id", "set instance-id instead");
        managed.put("client.id", "each client's id is derived from application and instance-id");
        managed.put(
                "partition.assignment.strategy",
                "Weir's assignor gives partition p of every input to one member (co-partitioning)");
        for (String side : List.of("key", "value")) {
            managed.put(side + ".serializer", "record values are encoded by the sink's format");
            managed.put(side + ".deserializer", "record values are decoded by the source's format");
        }
        return Map.copyOf(managed);
    }
}
