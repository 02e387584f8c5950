package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.kafka.CoPartitionedAssignor.Member;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The source consumer's assignor, in a simulated group: members rejoin with what they own, as the
 * cooperative protocol does, until the assignment is stable.
 */
class CoPartitionedAssignorProperties {

    /** A group: member id → what it owns (its last assignment). */
    private final Map<String, List<TopicPartition>> owned = new TreeMap<>();

    private Map<String, Integer> counts;
    private int generation;
    /** Member id → the partitions it announces warm copies of (processing.standby). */
    private final Map<String, Set<TopicPartition>> warm = new HashMap<>();

    private java.util.Random random;

    /**
     * Rebalances until nothing changes (cooperative: a moved unit takes two rounds), checking every
     * round's assignment; returns the number of rounds.
     */
    private int rebalance() {
        for (int round = 1; round <= 5; round++) {
            generation++;
            Map<String, Member> members = new TreeMap<>();
            owned.forEach((id, tps) -> members.put(
                    id, new Member(id, counts.keySet(), tps, generation - 1, warm.getOrDefault(id, Set.of()))));
            Map<String, List<TopicPartition>> result = CoPartitionedAssignor.assign(counts, members);
            checkRound(result);
            boolean changed = false;
            for (String id : owned.keySet()) {
                List<TopicPartition> now = result.getOrDefault(id, List.of());
                changed |= !new HashSet<>(now).equals(new HashSet<>(owned.get(id)));
                owned.put(id, now);
            }
            if (!changed) {
                return round;
            }
        }
        throw new AssertionError("no stable assignment after 5 rounds: " + owned);
    }

    private void checkRound(Map<String, List<TopicPartition>> result) {
        Map<TopicPartition, String> holder = new HashMap<>();
        for (Map.Entry<String, List<TopicPartition>> e : result.entrySet()) {
            for (TopicPartition tp : e.getValue()) {
                String other = holder.put(tp, e.getKey());
                assertNull(other, tp + " assigned to " + other + " and " + e.getKey());
                // Cooperative: never straight from one live owner to another.
                for (Map.Entry<String, List<TopicPartition>> o : owned.entrySet()) {
                    assertFalse(
                            !o.getKey().equals(e.getKey()) && o.getValue().contains(tp),
                            tp + " given to " + e.getKey() + " while " + o.getKey() + " still owns it");
                }
                // Co-partitioned: partition p of every topic with the same count comes along.
                int count = counts.get(tp.topic());
                counts.forEach((topic, c) -> {
                    if (c == count) {
                        assertTrue(
                                e.getValue().contains(new TopicPartition(topic, tp.partition())),
                                e.getKey() + " got " + tp + " without " + topic + "-" + tp.partition());
                    }
                });
            }
        }
    }

    private Map<String, Integer> units() {
        Map<String, Integer> perMember = new TreeMap<>();
        owned.forEach((id, tps) -> perMember.put(id, (int) tps.stream()
                .map(tp -> counts.get(tp.topic()) + "/" + tp.partition())
                .distinct()
                .count()));
        return perMember;
    }

    private int unitCount() {
        Set<String> units = new HashSet<>();
        counts.forEach((topic, c) -> {
            for (int p = 0; p < c; p++) {
                units.add(c + "/" + p);
            }
        });
        return units.size();
    }

    private void checkStable() {
        Map<String, Integer> perMember = units();
        int total = perMember.values().stream().mapToInt(Integer::intValue).sum();
        assertEquals(unitCount(), total, "every unit is assigned once stable: " + owned);
        int min = perMember.values().stream().mapToInt(Integer::intValue).min().orElse(0);
        int max = perMember.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        assertTrue(max - min <= 1, "balanced within one unit: " + perMember);
    }

    /**
     * A new member; in two tries of three it announces warm copies of random partitions (the
     * preference for warm members must not break any property below).
     */
    private void join(String id) {
        owned.put(id, List.of());
        Set<TopicPartition> copies = new HashSet<>();
        if (random.nextInt(3) > 0) {
            counts.forEach((topic, c) -> {
                for (int p = 0; p < c; p++) {
                    if (random.nextInt(3) == 0) {
                        copies.add(new TopicPartition(topic, p));
                    }
                }
            });
        }
        warm.put(id, copies);
    }

    @Property(tries = 300, seed = "7")
    void joinsAndLeavesConvergeToABalancedCoPartitionedAssignmentMovingOnlyWhatTheyMust(
            @ForAll @Size(min = 1, max = 3) List<@IntRange(min = 1, max = 9) Integer> topicCounts,
            @ForAll @IntRange(min = 1, max = 4) int initialMembers,
            @ForAll @Size(max = 6) List<@IntRange(min = 0, max = 9) Integer> changes,
            @ForAll long warmSeed) {
        owned.clear(); // one group per try
        warm.clear();
        random = new java.util.Random(warmSeed);
        generation = 0;
        counts = new TreeMap<>();
        for (int i = 0; i < topicCounts.size(); i++) {
            counts.put("t" + i, topicCounts.get(i));
        }
        int next = 0;
        for (; next < initialMembers; next++) {
            join("m" + next);
        }
        assertTrue(rebalance() <= 2);
        checkStable();
        for (int change : changes) {
            Map<String, Set<TopicPartition>> before = new HashMap<>();
            owned.forEach((id, tps) -> before.put(id, new HashSet<>(tps)));
            boolean join = change % 2 == 0 || owned.size() == 1;
            if (join) {
                join("m" + next++);
            } else {
                List<String> ids = new ArrayList<>(owned.keySet());
                owned.remove(ids.get(change % ids.size()));
            }
            assertTrue(rebalance() <= 3, "a join or leave settles in a revoke round and an assign round");
            checkStable();
            for (Map.Entry<String, Set<TopicPartition>> b : before.entrySet()) {
                if (!owned.containsKey(b.getKey())) {
                    continue;
                }
                Set<TopicPartition> now = new HashSet<>(owned.get(b.getKey()));
                if (join) {
                    // A join only takes units away from the members that had them.
                    assertTrue(b.getValue().containsAll(now), b.getKey() + " gained " + now + " on a join");
                } else {
                    // A leave only hands the leaver's units out: nobody loses one.
                    assertTrue(now.containsAll(b.getValue()), b.getKey() + " lost units on a leave: " + now);
                }
            }
        }
    }

    @Test
    void aUnitClaimedByTwoMembersBelongsToTheHigherGeneration() {
        counts = Map.of("orders", 2, "customers", 2);
        List<TopicPartition> both0 = List.of(new TopicPartition("orders", 0), new TopicPartition("customers", 0));
        Map<String, Member> members = new TreeMap<>();
        // The zombie missed a generation and still claims unit 0, which the other owns now.
        members.put("zombie", new Member("a", counts.keySet(), both0, 4));
        members.put("current", new Member("b", counts.keySet(), both0, 5));
        Map<String, List<TopicPartition>> result = CoPartitionedAssignor.assign(counts, members);
        assertTrue(result.get("current").containsAll(both0), "the current owner keeps unit 0: " + result);
        assertTrue(
                result.get("zombie").stream().noneMatch(tp -> tp.partition() == 0),
                "the zombie gets nothing of unit 0: " + result);
    }

    @Test
    void aUnitLeftByALeaverGoesToAMemberHoldingAWarmCopyOfIt() {
        counts = Map.of("orders", 6);
        List<TopicPartition> ofA = List.of(new TopicPartition("orders", 0), new TopicPartition("orders", 1));
        List<TopicPartition> ofB = List.of(new TopicPartition("orders", 2), new TopicPartition("orders", 3));
        // c (units 4 and 5) left; a holds a copy of unit 4, b of unit 5: crosswise to the order in
        // which units are otherwise handed out (fewest first, then by id).
        for (boolean warm : List.of(false, true)) {
            Map<String, Member> members = new TreeMap<>();
            members.put(
                    "a",
                    new Member(
                            "a", counts.keySet(), ofA, 3, warm ? Set.of(new TopicPartition("orders", 5)) : Set.of()));
            members.put(
                    "b",
                    new Member(
                            "b", counts.keySet(), ofB, 3, warm ? Set.of(new TopicPartition("orders", 4)) : Set.of()));
            Map<String, List<TopicPartition>> result = CoPartitionedAssignor.assign(counts, members);
            assertEquals(3, result.get("a").size(), result.toString());
            assertEquals(3, result.get("b").size(), result.toString());
            if (warm) {
                assertTrue(result.get("a").contains(new TopicPartition("orders", 5)), result.toString());
                assertTrue(result.get("b").contains(new TopicPartition("orders", 4)), result.toString());
            } else {
                // Without copies the plain order decides, which the warm case had to overrule.
                assertTrue(result.get("a").contains(new TopicPartition("orders", 4)), result.toString());
            }
        }
    }

    @Test
    void theWarmPartitionsRoundTripThroughTheSubscriptionsUserData() {
        CoPartitionedAssignor assignor = new CoPartitionedAssignor();
        Set<TopicPartition> warm = Set.of(new TopicPartition("orders", 3), new TopicPartition("a.b-c_d", 11));
        java.util.function.Supplier<Set<TopicPartition>> supplier = () -> warm;
        assignor.configure(Map.of(CoPartitionedAssignor.WARM_PARTITIONS, supplier));
        assertEquals(warm, CoPartitionedAssignor.warm(assignor.subscriptionUserData(Set.of("orders"))));
        assertEquals(Set.of(), CoPartitionedAssignor.warm(new CoPartitionedAssignor().subscriptionUserData(Set.of())));
    }
}
