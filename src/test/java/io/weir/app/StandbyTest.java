package io.weir.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Which tasks an instance keeps warm copies of: the ring of members, sorted by instance id. */
class StandbyTest {
    private static final Map<String, String> OWNERS =
            new TreeMap<>(Map.of("job-0", "a", "job-1", "a", "job-2", "b", "job-3", "b", "job-4", "c", "job-5", "c"));

    @Test
    void oneCopyFollowsTheTasksOfTheMemberBefore() {
        assertEquals(Set.of("job-4", "job-5"), Standby.followed(OWNERS, "a", 1));
        assertEquals(Set.of("job-0", "job-1"), Standby.followed(OWNERS, "b", 1));
        assertEquals(Set.of("job-2", "job-3"), Standby.followed(OWNERS, "c", 1));
    }

    @Test
    void moreCopiesThanOtherMembersFollowEveryOtherTaskAndNeverOwnOnes() {
        assertEquals(Set.of("job-2", "job-3", "job-4", "job-5"), Standby.followed(OWNERS, "a", 2));
        assertEquals(Set.of("job-2", "job-3", "job-4", "job-5"), Standby.followed(OWNERS, "a", 5));
    }

    @Test
    void everyTaskHasAsManyCopiesAsAskedOnDistinctOtherMembers() {
        for (int copies = 1; copies <= 2; copies++) {
            Map<String, Integer> count = new TreeMap<>();
            for (String me : Set.of("a", "b", "c")) {
                for (String task : Standby.followed(OWNERS, me, copies)) {
                    count.merge(task, 1, Integer::sum);
                    assertEquals(false, OWNERS.get(task).equals(me), task + " followed by its owner");
                }
            }
            for (String task : OWNERS.keySet()) {
                assertEquals(copies, count.getOrDefault(task, 0), task + " with " + copies + " copies");
            }
        }
    }

    @Test
    void aMemberWithoutTasksJoinsTheRingInItsPlace() {
        // "b2" sorts between b and c: it follows b's tasks, and c now follows nothing of b's.
        assertEquals(Set.of("job-2", "job-3"), Standby.followed(OWNERS, "b2", 1));
        assertEquals(Set.of("job-4", "job-5"), Standby.followed(OWNERS, "a", 1));
        assertEquals(Set.of(), Standby.followed(Map.of(), "a", 1));
    }
}
