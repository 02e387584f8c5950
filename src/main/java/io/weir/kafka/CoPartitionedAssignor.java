package io.weir.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;

/**
 * The source consumer's partition assignor: co-partitioned, sticky and cooperative.
 *
 * <p><b>Co-partitioned</b>: the unit of assignment is a <em>unit</em> — partition p of every
 * subscribed topic with the same partition count — so a task that reads partition p of several
 * topics (a join, a lookup) gets them together, as the range assignor did. <b>Sticky</b>: a member
 * keeps the units it owns as long as that stays balanced (every member gets ⌊units / members⌋ or
 * one more), so a join or leave moves only the units it must. <b>Cooperative</b>: a unit that moves
 * from one live member to another is first only taken away (the owner revokes it and the group
 * rebalances again at once) and given to its new owner in the next round; the members' other
 * tasks keep running throughout. A unit claimed by two members (a zombie that missed a generation)
 * belongs to the claim of the higher generation. <b>Warm</b>: a unit that must move goes, among the
 * members with room for it, to one that keeps a standby copy of its task (processing.standby), which
 * each member announces in its subscription ({@link #WARM_PARTITIONS}). <b>Counted</b>: a key's state
 * lives in the task of the partition it hashes to, so when an input topic's partition count differs
 * from the one the instance started with ({@link #EXPECTED_COUNTS}: a partition was added under a
 * running job) the leader assigns nothing to anyone and tells every member why; each stops with that
 * error ({@link #onAssignment}) instead of running a new partition's task from empty state.
 */
public final class CoPartitionedAssignor implements ConsumerPartitionAssignor, Configurable {
    public static final String NAME = "weir-copartitioned";

    /**
     * Consumer config key (not a Kafka setting): a {@code Supplier<Set<TopicPartition>>} of the
     * partitions whose tasks this member keeps warm copies of.
     */
    public static final String WARM_PARTITIONS = "weir.warm.partitions";

    /**
     * Consumer config key (not a Kafka setting): a {@code Map<String, Integer>} of the partition
     * counts the instance started with (checked against those the job's checkpoints were taken with).
     */
    public static final String EXPECTED_COUNTS = "weir.expected.partition.counts";

    /**
     * Consumer config key: a {@code Runnable} run when this member is about to ask to join or rejoin
     * the group (the consumer asks the assignor for its subscription's user data just before it
     * sends the request): {@link RebalanceHold#rejoining}.
     */
    public static final String REJOINING = "weir.rebalance.rejoining";

    /** Starts the user data of an assignment that refuses to assign anything; the reason follows. */
    private static final String REFUSED = "weir-refused\n";

    private Supplier<Set<TopicPartition>> warm = Set::of;
    private Map<String, Integer> expectedCounts = Map.of();
    private Runnable rejoining = () -> {};

    /** A unit: partition {@code index} of every subscribed topic with {@code count} partitions. */
    record Unit(int count, int index) implements Comparable<Unit> {
        private static final Comparator<Unit> ORDER =
                Comparator.comparingInt(Unit::count).thenComparingInt(Unit::index);

        @Override
        public int compareTo(Unit o) {
            return ORDER.compare(this, o);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void configure(Map<String, ?> configs) {
        if (configs.get(WARM_PARTITIONS) instanceof Supplier<?> supplier) {
            warm = (Supplier<Set<TopicPartition>>) supplier;
        }
        if (configs.get(EXPECTED_COUNTS) instanceof Map<?, ?> counts) {
            expectedCounts = Map.copyOf((Map<String, Integer>) counts);
        }
        if (configs.get(REJOINING) instanceof Runnable r) {
            rejoining = r;
        }
    }

    @Override
    public ByteBuffer subscriptionUserData(Set<String> topics) {
        rejoining.run();
        Set<TopicPartition> partitions = warm.get();
        if (partitions.isEmpty()) {
            return null;
        }
        // One "topic partition" per line (a topic name has no space or newline).
        Set<TopicPartition> sorted =
                new TreeSet<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        sorted.addAll(partitions);
        StringBuilder text = new StringBuilder();
        for (TopicPartition tp : sorted) {
            text.append(tp.topic()).append(' ').append(tp.partition()).append('\n');
        }
        return ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The partitions a subscription's user data names as warm ({@link #subscriptionUserData}). */
    static Set<TopicPartition> warm(ByteBuffer userData) {
        String text = text(userData);
        if (text.isEmpty()) {
            return Set.of();
        }
        Set<TopicPartition> warm = new HashSet<>();
        for (String line : text.split("\n")) {
            int space = line.lastIndexOf(' ');
            if (space > 0) {
                try {
                    warm.add(new TopicPartition(line.substring(0, space), Integer.parseInt(line.substring(space + 1))));
                } catch (NumberFormatException e) {
                    // another version's data: no preference from it
                }
            }
        }
        return warm;
    }

    /** User data as UTF-8 text, without moving the buffer's position; "" when there is none. */
    private static String text(ByteBuffer data) {
        if (data == null || !data.hasRemaining()) {
            return "";
        }
        ByteBuffer copy = data.duplicate();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return List.of(RebalanceProtocol.COOPERATIVE);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        Map<String, Subscription> subscriptions = groupSubscription.groupSubscription();
        Map<String, Integer> counts = new HashMap<>();
        for (Subscription s : subscriptions.values()) {
            for (String topic : s.topics()) {
                Integer count = metadata.partitionCountForTopic(topic);
                if (count != null && count > 0) {
                    counts.put(topic, count);
                }
            }
        }
        Map<String, Assignment> result = new HashMap<>();
        String changed = changedCount(counts, expectedCounts);
        if (changed != null) {
            ByteBuffer reason = ByteBuffer.wrap((REFUSED + changed).getBytes(StandardCharsets.UTF_8));
            subscriptions.keySet().forEach(member -> result.put(member, new Assignment(List.of(), reason)));
            return new GroupAssignment(result);
        }
        Map<String, List<TopicPartition>> assigned = assign(counts, members(subscriptions));
        assigned.forEach((member, partitions) -> result.put(member, new Assignment(partitions)));
        return new GroupAssignment(result);
    }

    /**
     * Why the assignment is refused: the first topic (by name) whose count in the metadata differs
     * from the one expected, as the error every member stops with; null when none does.
     */
    static String changedCount(Map<String, Integer> counts, Map<String, Integer> expected) {
        for (Map.Entry<String, Integer> e : new TreeMap<>(counts).entrySet()) {
            Integer before = expected.get(e.getKey());
            if (before != null && !before.equals(e.getValue())) {
                return PartitionCounts.changed(e.getKey(), Integer.toString(e.getValue()), before)
                        + ". Every instance of the job stopped instead of running the new partitions. "
                        + PartitionCounts.REMEDY;
            }
        }
        return null;
    }

    /** Stops the member with the leader's reason when the assignment refuses to assign anything. */
    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        String text = text(assignment.userData());
        if (text.startsWith(REFUSED)) {
            throw new SourceLoop.FatalException(text.substring(REFUSED.length()), null);
        }
    }

    /** What the assignor needs of a member's subscription. */
    record Member(String id, Set<String> topics, List<TopicPartition> owned, int generation, Set<TopicPartition> warm) {
        Member(String id, Set<String> topics, List<TopicPartition> owned, int generation) {
            this(id, topics, owned, generation, Set.of());
        }

        boolean warm(Unit u, List<String> topics) {
            for (String topic : topics) {
                if (warm.contains(new TopicPartition(topic, u.index()))) {
                    return true;
                }
            }
            return false;
        }
    }

    static Map<String, Member> members(Map<String, Subscription> subscriptions) {
        Map<String, Member> members = new TreeMap<>();
        subscriptions.forEach((id, s) -> members.put(
                id,
                new Member(
                        // Static members keep their instance id across restarts; it orders them stably.
                        s.groupInstanceId().orElse(id),
                        Set.copyOf(s.topics()),
                        s.ownedPartitions(),
                        s.generationId().orElse(-1),
                        warm(s.userData()))));
        return members;
    }

    /**
     * The assignment of the units of {@code partitionCounts} (topic → partition count) to
     * {@code members} (member id → member), as partitions per member id.
     */
    static Map<String, List<TopicPartition>> assign(Map<String, Integer> partitionCounts, Map<String, Member> members) {
        Map<Unit, List<String>> topicsOf = new TreeMap<>();
        new TreeMap<>(partitionCounts).forEach((topic, count) -> {
            for (int p = 0; p < count; p++) {
                topicsOf.computeIfAbsent(new Unit(count, p), u -> new ArrayList<>())
                        .add(topic);
            }
        });
        // Who owns each unit now: the claim with the highest generation.
        Map<Unit, String> owner = new HashMap<>();
        Map<Unit, Integer> ownerGeneration = new HashMap<>();
        for (Map.Entry<String, Member> m : members.entrySet()) {
            for (TopicPartition tp : m.getValue().owned()) {
                Integer count = partitionCounts.get(tp.topic());
                if (count == null || tp.partition() >= count) {
                    continue;
                }
                Unit u = new Unit(count, tp.partition());
                Integer g = ownerGeneration.get(u);
                if (g == null || m.getValue().generation() > g) {
                    owner.put(u, m.getKey());
                    ownerGeneration.put(u, m.getValue().generation());
                }
            }
        }
        List<String> order = new ArrayList<>(members.keySet());
        order.sort(Comparator.comparing((String id) -> members.get(id).id()).thenComparing(id -> id));
        Map<String, List<Unit>> target = new HashMap<>();
        order.forEach(id -> target.put(id, new ArrayList<>()));
        if (order.isEmpty()) {
            return Map.of();
        }
        int base = topicsOf.size() / order.size();
        int extra = topicsOf.size() % order.size();
        // 1. Members keep what they own, up to the base quota; then the extra slots go to members
        //    that own more, so nothing moves that need not.
        Map<String, List<Unit>> owns = new HashMap<>();
        order.forEach(id -> owns.put(id, new ArrayList<>()));
        owner.forEach((u, id) -> {
            if (eligible(members.get(id), topicsOf.get(u))) {
                owns.get(id).add(u);
            }
        });
        Set<Unit> kept = new HashSet<>();
        for (String id : order) {
            List<Unit> mine = owns.get(id);
            mine.sort(null);
            for (int i = 0; i < Math.min(base, mine.size()); i++) {
                target.get(id).add(mine.get(i));
                kept.add(mine.get(i));
            }
        }
        for (String id : order) {
            List<Unit> mine = owns.get(id);
            if (extra > 0 && mine.size() > base) {
                target.get(id).add(mine.get(base));
                kept.add(mine.get(base));
                extra--;
            }
        }
        // 2. The rest goes to the members below their quota: one with a warm copy of the unit's
        //    task first, then the one with fewest.
        for (Unit u : topicsOf.keySet()) {
            if (kept.contains(u)) {
                continue;
            }
            String to = null;
            boolean toWarm = false;
            for (String id : order) {
                int quota = base + (extra > 0 ? 1 : 0);
                if (target.get(id).size() >= quota || !eligible(members.get(id), topicsOf.get(u))) {
                    continue;
                }
                boolean warm = members.get(id).warm(u, topicsOf.get(u));
                if (to == null
                        || (warm && !toWarm)
                        || (warm == toWarm
                                && target.get(id).size() < target.get(to).size())) {
                    to = id;
                    toWarm = warm;
                }
            }
            if (to == null) {
                continue; // no member reads all its topics (a rolling update changing the job)
            }
            if (target.get(to).size() == base) {
                extra--;
            }
            // 3. Cooperative: a unit a live member still owns is given to its new owner only after
            //    that member revoked it, in the rebalance that follows at once. It counts toward the
            //    new owner's quota now, so the next round gives it the same unit.
            target.get(to).add(u);
        }
        Map<String, List<TopicPartition>> result = new HashMap<>();
        for (String id : order) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (Unit u : target.get(id)) {
                String current = owner.get(u);
                if (current != null && !current.equals(id)) {
                    continue;
                }
                for (String topic : topicsOf.get(u)) {
                    if (members.get(id).topics().contains(topic)) {
                        partitions.add(new TopicPartition(topic, u.index()));
                    }
                }
            }
            result.put(id, partitions);
        }
        return result;
    }

    private static boolean eligible(Member m, List<String> topics) {
        return m.topics().containsAll(topics);
    }
}
