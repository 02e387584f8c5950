package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The assignor against the partition counts the instance started with. */
class CoPartitionedAssignorTest {
    private static final Node BROKER = new Node(0, "localhost", 9092);

    private static Cluster cluster(String topic, int partitions) {
        List<PartitionInfo> infos = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            infos.add(new PartitionInfo(topic, p, BROKER, new Node[] {BROKER}, new Node[] {BROKER}));
        }
        return new Cluster("c", List.of(BROKER), infos, Set.of(), Set.of());
    }

    private static CoPartitionedAssignor startedWith(Map<String, Integer> counts) {
        CoPartitionedAssignor assignor = new CoPartitionedAssignor();
        assignor.configure(Map.of(CoPartitionedAssignor.EXPECTED_COUNTS, counts));
        return assignor;
    }

    private static GroupSubscription twoMembers(String topic) {
        return new GroupSubscription(Map.of(
                "m1", new Subscription(List.of(topic), null, List.of()),
                "m2", new Subscription(List.of(topic), null, List.of())));
    }

    @Test
    void theSubscriptionOfEachJoinRequestTellsTheRebalanceHoldThatTheMemberRejoins() throws Exception {
        RebalanceHold hold = new RebalanceHold();
        CoPartitionedAssignor assignor = new CoPartitionedAssignor();
        assignor.configure(Map.of(CoPartitionedAssignor.REJOINING, (Runnable) hold::rejoining));
        assertTrue(hold.commitStarts(java.time.Duration.ZERO), "no rejoin yet");
        hold.commitEnded();

        assignor.subscriptionUserData(Set.of("orders")); // the consumer builds its join request

        assertFalse(hold.commitStarts(java.time.Duration.ZERO), "commits wait once the member rejoins");
    }

    @Test
    void aPartitionAddedUnderTheJobAssignsNothingAndStopsEveryMemberNamingTopicAndBothCounts() {
        CoPartitionedAssignor leader = startedWith(Map.of("orders", 2));

        GroupAssignment result = leader.assign(cluster("orders", 3), twoMembers("orders"));

        assertEquals(Set.of("m1", "m2"), result.groupAssignment().keySet());
        for (Assignment a : result.groupAssignment().values()) {
            assertEquals(List.of(), a.partitions());
            CoPartitionedAssignor member = startedWith(Map.of("orders", 2));
            SourceLoop.FatalException e = assertThrows(
                    SourceLoop.FatalException.class,
                    () -> member.onAssignment(a, new ConsumerGroupMetadata("g", 2, "m1", java.util.Optional.empty())));
            assertTrue(
                    e.getMessage()
                            .startsWith("topic orders has 3 partitions, but the job's checkpoints were taken with 2"),
                    e.getMessage());
        }
    }

    @Test
    void theCountsTheInstanceStartedWithAssignEveryPartitionAndStopNoMember() {
        CoPartitionedAssignor leader = startedWith(Map.of("orders", 3));

        GroupAssignment result = leader.assign(cluster("orders", 3), twoMembers("orders"));

        List<TopicPartition> all = new ArrayList<>();
        for (Assignment a : result.groupAssignment().values()) {
            all.addAll(a.partitions());
            assertDoesNotThrow(() -> startedWith(Map.of("orders", 3))
                    .onAssignment(a, new ConsumerGroupMetadata("g", 2, "m1", java.util.Optional.empty())));
        }
        assertEquals(3, all.size());
        assertEquals(3, Set.copyOf(all).size());
    }

    @Test
    void aTopicTheInstanceDidNotStartWithIsNotCompared() {
        // An instance configured without counts (none known) assigns as before.
        assertEquals(null, CoPartitionedAssignor.changedCount(Map.of("orders", 3), Map.of()));
        assertEquals(null, CoPartitionedAssignor.changedCount(Map.of("orders", 3), Map.of("payments", 2)));
    }
}
