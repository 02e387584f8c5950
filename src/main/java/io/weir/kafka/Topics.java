package io.weir.kafka;

import io.weir.dataflow.RecordLimits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Topic administration at start: checks the input topics exist, creates the internal topics and
 * missing output topics, checks the broker's transaction limits, and lists leftover transactions.
 * Each refusal becomes a {@link StartupException} that says what was asked and what the broker said.
 */
public final class Topics {
    /**
     * A repartition topic Weir creates: kept for good (a purge deletes what every checkpoint read,
     * `RepartitionPurge`), in segments of 50 MiB or 10 minutes, since deleting records frees disk
     * only once their segment rolled (the broker's default is 1 GiB a segment, per partition).
     */
    public static final Map<String, String> REPARTITION_CONFIG =
            Map.of("retention.ms", "-1", "segment.bytes", Integer.toString(50 << 20), "segment.ms", "600000");

    private static final Logger LOG = LoggerFactory.getLogger(Topics.class);
    private static final long ADMIN_TIMEOUT_S = 60;
    /** While waiting for the broker at start, how long one attempt waits for an answer. */
    private static final long WAIT_ATTEMPT_S = 5;

    private final Admin admin;
    private final Optional<Short> replication;

    /** {@code replicationFactor}: of the topics this creates; -1 for the broker's default. */
    public Topics(Admin admin, int replicationFactor) {
        this.admin = admin;
        this.replication = replicationFactor < 0 ? Optional.empty() : Optional.of((short) replicationFactor);
    }

    /**
     * A setting a topic must have for Weir to keep what it needs: {@code accepts} the value (null
     * when the broker reports none), described by {@code expected} and {@code why}.
     */
    public record Requirement(String topic, String setting, Predicate<String> accepts, String expected, String why) {}

    /** A start-up check failed; the message is for the user. */
    public static final class StartupException extends RuntimeException {
        public StartupException(String message, Throwable cause) {
            super(message, cause);
        }

        public StartupException(String message) {
            super(message);
        }
    }

    /** Partition counts of existing topics; a missing one is an error naming it. */
    public Map<String, Integer> partitions(Collection<String> topics) {
        return partitions(topics, ADMIN_TIMEOUT_S);
    }

    private Map<String, Integer> partitions(Collection<String> topics, long timeoutSeconds) {
        try {
            Map<String, TopicDescription> d =
                    admin.describeTopics(topics).allTopicNames().get(timeoutSeconds, TimeUnit.SECONDS);
            java.util.HashMap<String, Integer> out = new java.util.HashMap<>();
            d.forEach((k, v) -> out.put(k, v.partitions().size()));
            return out;
        } catch (ExecutionException e) {
            throw new StartupException(
                    "cannot describe topics " + topics + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new StartupException(
                    "the broker did not answer within " + ADMIN_TIMEOUT_S + " s describing " + topics, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException("interrupted", e);
        }
    }

    /**
     * Partition counts of the input topics, waiting while one does not exist yet (a job started
     * before its input was created waits for it instead of failing) or the broker does not answer,
     * as long as {@code keepWaiting} says so. Logs what it waits for every {@code logEvery}.
     */
    public Map<String, Integer> awaitPartitions(
            Collection<String> topics, java.util.function.BooleanSupplier keepWaiting, java.time.Duration logEvery)
            throws InterruptedException {
        long nextLog = 0;
        while (true) {
            try {
                return partitions(topics, WAIT_ATTEMPT_S);
            } catch (StartupException e) {
                boolean missing =
                        e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
                // A broker that does not answer yet (outage, still starting) is waited out too.
                boolean unreachable = e.getCause() instanceof java.util.concurrent.TimeoutException
                        || e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException;
                if (!(missing || unreachable) || !keepWaiting.getAsBoolean()) {
                    throw e;
                }
                if (System.currentTimeMillis() >= nextLog) {
                    LOG.warn(
                            missing
                                    ? "waiting for the input topics {} to exist (checking again every second)"
                                    : "waiting for the Kafka broker to answer (it did not within {} s); Weir"
                                            + " starts once it does",
                            missing ? topics : WAIT_ATTEMPT_S);
                    nextLog = System.currentTimeMillis() + logEvery.toMillis();
                }
                TimeUnit.MILLISECONDS.sleep(missing ? 1000 : 200);
            }
        }
    }

    /** Creates a topic unless it exists. */
    public void ensure(String name, int partitions, Map<String, String> configs) {
        NewTopic topic = new NewTopic(name, Optional.of(partitions), replication).configs(configs);
        try {
            admin.createTopics(List.of(topic)).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            LOG.info("created topic {} ({} partitions, {})", name, partitions, configs);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new StartupException(
                        "cannot create topic " + name + " (" + partitions + " partitions, " + configs + "): "
                                + e.getCause().getMessage(),
                        e.getCause());
            }
        } catch (TimeoutException e) {
            throw new StartupException(
                    "the broker did not answer within " + ADMIN_TIMEOUT_S + " s creating " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException("interrupted", e);
        }
    }

    /**
     * The compacted topics Weir keeps its checkpoints and snapshots in, created unless they exist;
     * an existing one must be configured as Weir would create it (see {@link #internalRequirements}).
     */
    public void ensureInternal(String checkpoints, String snapshots) {
        ensure(
                checkpoints,
                1,
                Map.of("cleanup.policy", "compact", "segment.ms", "600000", "min.compaction.lag.ms", "0"));
        ensure(
                snapshots,
                4,
                Map.of(
                        "cleanup.policy",
                        "compact",
                        "max.message.bytes",
                        Integer.toString(2 << 20),
                        "segment.ms",
                        "600000"));
    }

    /**
     * What the internal topics must keep: the checkpoint and snapshot topics are compacted and
     * nothing else (with {@code delete} the latest checkpoint and the files it names would go after
     * {@code retention.ms}), the snapshot topic takes a whole chunk, and a repartition topic deletes
     * nothing by time or size (it is purged up to what completed checkpoints consumed, and a job
     * stopped for longer than a retention period must still find what it had not read).
     */
    public static List<Requirement> internalRequirements(
            String checkpoints, String snapshots, Collection<String> repartitions) {
        List<Requirement> r = new ArrayList<>();
        String keepLatest = "Weir keeps its latest records there for good; with delete they go after retention.ms";
        r.add(new Requirement(checkpoints, "cleanup.policy", "compact"::equals, "compact", keepLatest));
        r.add(new Requirement(snapshots, "cleanup.policy", "compact"::equals, "compact", keepLatest));
        int chunk = KafkaSnapshotStore.CHUNK + 64 * 1024;
        r.add(new Requirement(
                snapshots,
                "max.message.bytes",
                v -> v == null || Long.parseLong(v) >= chunk,
                "at least " + chunk,
                "snapshot files are written in chunks of " + KafkaSnapshotStore.CHUNK + " bytes"));
        for (String topic : repartitions) {
            String unread = "records of the next stage not yet read must stay until a checkpoint consumed them";
            r.add(new Requirement(topic, "cleanup.policy", "delete"::equals, "delete", unread));
            r.add(new Requirement(topic, "retention.ms", "-1"::equals, "-1", unread));
            r.add(new Requirement(topic, "retention.bytes", v -> v == null || v.equals("-1"), "-1", unread));
        }
        return r;
    }

    /**
     * Checks the topics' settings against {@code requirements}; every violation together in one
     * start-up error, a line each, naming the topic, the setting, what it is and what it must be.
     */
    public void require(List<Requirement> requirements) {
        Map<String, Config> configs =
                describe(requirements.stream().map(Requirement::topic).toList());
        List<String> problems = new ArrayList<>();
        for (Requirement req : requirements) {
            Config config = configs.get(req.topic());
            var entry = config == null ? null : config.get(req.setting());
            String value = entry == null ? null : entry.value();
            if (!req.accepts().test(value)) {
                problems.add("topic " + req.topic() + " has " + req.setting() + "=" + value + ", Weir needs "
                        + req.expected() + " (" + req.why() + "); change it with kafka-configs.sh --alter --entity-type"
                        + " topics --entity-name " + req.topic() + " --add-config " + req.setting() + "="
                        + (req.expected().startsWith("at least ")
                                ? req.expected().substring(9)
                                : req.expected()));
            }
        }
        if (!problems.isEmpty()) {
            throw new StartupException(String.join("\n", problems));
        }
    }

    /** The broker's {@code transaction.max.timeout.ms}: the producers' timeout must not exceed it. */
    public long brokerMaxTransactionTimeoutMs() {
        try {
            var nodes = admin.describeCluster().nodes().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            if (nodes.isEmpty()) {
                throw new StartupException("the cluster reported no brokers");
            }
            ConfigResource broker = new ConfigResource(
                    ConfigResource.Type.BROKER, nodes.iterator().next().idString());
            Config config = admin.describeConfigs(Set.of(broker))
                    .all()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS)
                    .get(broker);
            var entry = config.get("transaction.max.timeout.ms");
            return entry == null || entry.value() == null ? 900_000L : Long.parseLong(entry.value());
        } catch (ExecutionException e) {
            throw new StartupException(
                    "cannot read the broker's transaction.max.timeout.ms: "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new StartupException("the broker did not answer within " + ADMIN_TIMEOUT_S + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException("interrupted", e);
        }
    }

    /**
     * What each topic accepts: its largest record ({@code max.message.bytes}, which the broker's
     * {@code message.max.bytes} sets by default), capped at {@code cap}, the producers' request
     * limit; and how far a record's timestamp may be ahead of and behind the broker's clock
     * ({@code message.timestamp.after.max.ms} / {@code before.max.ms}), unbounded when the topic
     * takes the broker's time ({@code message.timestamp.type=LogAppendTime}).
     */
    public Map<String, RecordLimits.Topic> recordLimits(Collection<String> topics, int cap) {
        Map<String, RecordLimits.Topic> out = new java.util.HashMap<>();
        describe(topics).forEach((topic, config) -> {
            String bytes = value(config, "max.message.bytes");
            int max = bytes == null ? cap : Math.min(cap, Integer.parseInt(bytes));
            boolean brokerTime = "LogAppendTime".equals(value(config, "message.timestamp.type"));
            // Brokers before 3.6 know one window both ways (difference.max.ms), unbounded by default.
            String either = value(config, "message.timestamp.difference.max.ms");
            String ahead = value(config, "message.timestamp.after.max.ms");
            String behind = value(config, "message.timestamp.before.max.ms");
            out.put(
                    topic,
                    new RecordLimits.Topic(
                            max,
                            brokerTime ? Long.MAX_VALUE : millis(ahead != null ? ahead : either),
                            brokerTime ? Long.MAX_VALUE : millis(behind != null ? behind : either)));
        });
        return out;
    }

    /** A window setting in ms; absent: unbounded. */
    private static long millis(String setting) {
        return setting == null ? Long.MAX_VALUE : Long.parseLong(setting);
    }

    private static String value(Config config, String name) {
        var entry = config.get(name);
        return entry == null ? null : entry.value();
    }

    /** The configurations of {@code topics}, by topic name. */
    private Map<String, Config> describe(Collection<String> topics) {
        List<ConfigResource> resources = topics.stream()
                .distinct()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        try {
            Map<ConfigResource, Config> configs = null;
            // A topic created a moment ago may not be known to the broker answering yet.
            for (int attempt = 0; configs == null; attempt++) {
                try {
                    configs = admin.describeConfigs(resources).all().get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException)
                            || attempt == 50) {
                        throw e;
                    }
                    TimeUnit.MILLISECONDS.sleep(200);
                }
            }
            Map<String, Config> out = new java.util.HashMap<>();
            configs.forEach((resource, config) -> out.put(resource.name(), config));
            return out;
        } catch (ExecutionException e) {
            throw new StartupException(
                    "cannot read the configuration of " + topics + ": "
                            + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new StartupException("the broker did not answer within " + ADMIN_TIMEOUT_S + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StartupException("interrupted", e);
        }
    }

    /** Transactional ids starting with {@code prefix} that have a transaction open. */
    public List<String> transactionalIds(String prefix) {
        try {
            Collection<TransactionListing> all = admin.listTransactions(
                            new org.apache.kafka.clients.admin.ListTransactionsOptions()
                                    .filterStates(OpenTransactions.OPEN))
                    .all()
                    .get(ADMIN_TIMEOUT_S, TimeUnit.SECONDS);
            List<String> ids = new ArrayList<>();
            for (TransactionListing t : all) {
                if (t.transactionalId().startsWith(prefix)) {
                    ids.add(t.transactionalId());
                }
            }
            return ids;
        } catch (ExecutionException e) {
            LOG.warn(
                    "cannot list transactions to find leftovers of {}*: {}",
                    prefix,
                    e.getCause().toString());
            return List.of();
        } catch (TimeoutException e) {
            LOG.warn("listing transactions timed out; leftovers of {}* are not cleaned up", prefix);
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    static Duration adminTimeout() {
        return Duration.ofSeconds(ADMIN_TIMEOUT_S);
    }
}
