package io.weir.app;

import io.weir.checkpoint.TaskCheckpoint;
import io.weir.dataflow.Stage;
import io.weir.kafka.CheckpointReader;
import io.weir.state.RestorePoint;
import io.weir.state.RestoreSizes;
import io.weir.state.RocksDbBackend;
import io.weir.state.SnapshotStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code processing.standby}: this instance keeps warm copies of tasks other instances run, so
 * that taking one over (its owner was lost, left or the group rebalanced) restores from local files
 * instead of downloading the task's whole state. Each round it reads who runs which task from the
 * group (the members' assignments), picks the tasks it follows, reads their latest completed
 * checkpoints and brings the local copies up to them ({@link RocksDbBackend#follow}: only the files
 * a checkpoint added are downloaded). The tasks it holds copies of are announced to the group's
 * assignor ({@link #warmPartitions}), which gives a task that must move to a member holding its copy.
 *
 * <p>Who follows what: the members, sorted by instance id, form a ring; the tasks of a member are
 * followed by the next {@code standby} members after it. Every task thus has that many copies
 * (fewer when the group is smaller) and each member follows about as much as it runs.
 *
 * <p>Threading: rounds run one at a time on their own thread; a restore of a task gives way to them
 * between two files (see {@link RocksDbBackend}).
 */
final class Standby implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(Standby.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final InstanceSettings settings;
    private final Admin admin;
    private final CheckpointReader checkpoints;
    private final RocksDbBackend backend;
    private final SnapshotStore snapshots;
    private final InstanceEvents events;
    private Set<String> following = Set.of();
    /** The partitions of the tasks with an up-to-date copy, announced to the group's assignor. */
    private final AtomicReference<Set<TopicPartition>> warm = new AtomicReference<>(Set.of());
    /** From the last round's group description: the input partitions of each running task. */
    private final Map<String, List<TopicPartition>> partitionsOf = new HashMap<>();

    Standby(
            InstanceSettings settings,
            Admin admin,
            CheckpointReader checkpoints,
            RocksDbBackend backend,
            SnapshotStore snapshots,
            InstanceEvents events) {
        this.settings = settings;
        this.admin = admin;
        this.checkpoints = checkpoints;
        this.backend = backend;
        this.snapshots = snapshots;
        this.events = events;
    }

    /** How often a round runs: each checkpoint interval, at most every 5 s. */
    static Duration period(InstanceSettings settings) {
        Duration interval = settings.checkpoint().interval();
        Duration floor = Duration.ofSeconds(5);
        return interval.compareTo(floor) > 0 ? interval : floor;
    }

    /**
     * The partitions whose tasks this instance keeps warm copies of: the source consumer's
     * assignor announces them, so a task that must move goes to a member holding its copy.
     */
    Supplier<Set<TopicPartition>> warmPartitions() {
        return warm::get;
    }

    @Override
    public void run() {
        try {
            round();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable e) {
            // The copies are an optimisation: a failed round leaves them as they were. (Throwing
            // out of here would cancel every later round.)
            LOG.warn("standby: could not refresh the warm copies (next round tries again): {}", e.toString());
        }
    }

    /** One round: who runs what, which of those this instance follows, copies brought up to date. */
    void round() throws Exception {
        Map<String, String> owners = owners();
        if (owners == null) {
            return; // rebalancing: who runs what is not known; the copies and the announcement stay
        }
        Set<String> tasks = followed(owners, settings.instanceId(), settings.standby());
        // Only a task another member now runs and this one does not follow loses its copy: a task
        // without an owner (its instance was lost) may come here next, and one assigned here is
        // about to be restored from it (the restore removes it).
        Set<String> dropped = new TreeSet<>();
        owners.forEach((task, owner) -> {
            if (!owner.equals(settings.instanceId()) && !tasks.contains(task)) {
                dropped.add(task);
            }
        });
        backend.unfollow(dropped);
        if (!tasks.equals(following)) {
            LOG.info("standby: following {}", tasks.isEmpty() ? "no task" : String.join(", ", tasks));
            following = tasks;
        }
        RestoreSizes total = RestoreSizes.NONE;
        Set<TopicPartition> copied = new HashSet<>();
        if (!tasks.isEmpty()) {
            Map<String, TaskCheckpoint> latest = checkpoints.latest(tasks, TIMEOUT);
            for (String task : tasks) {
                TaskCheckpoint c = latest.get(task);
                if (c == null) {
                    continue;
                }
                try {
                    RestoreSizes sizes = backend.follow(new RestorePoint(task, c.checkpointId(), c.state()), snapshots);
                    total = total.plus(sizes);
                    long size = c.state().files().stream()
                            .mapToLong(io.weir.state.StoredFile::size)
                            .sum();
                    if (sizes.localBytes() + sizes.downloadedBytes() == size) {
                        copied.addAll(partitionsOf.getOrDefault(task, List.of())); // whole: announce it
                    }
                } catch (java.io.IOException | RuntimeException e) {
                    // E.g. the owner's retention removed a file meanwhile: the next round follows
                    // the newer checkpoint. The other tasks go on.
                    LOG.debug("standby: could not bring the copy of {} up to date: {}", task, e.toString());
                }
            }
        }
        warm.set(Set.copyOf(copied));
        events.standbyFollowed(tasks, total);
        LOG.debug(
                "standby: {} tasks up to date, {} bytes kept, {} downloaded",
                tasks.size(),
                total.localBytes(),
                total.downloadedBytes());
    }

    /**
     * The running tasks by name, each with the instance id of the member running it; null while
     * the group is not stable (its members' assignments are then partial or empty).
     */
    private Map<String, String> owners() throws Exception {
        ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(settings.application()))
                .describedGroups()
                .get(settings.application())
                .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (group.groupState() != GroupState.STABLE) {
            return null;
        }
        Map<String, String> owners = new TreeMap<>();
        partitionsOf.clear();
        for (MemberDescription m : group.members()) {
            String id = m.groupInstanceId().orElse(m.consumerId());
            for (TopicPartition tp : m.assignment().topicPartitions()) {
                Stage stage = settings.stageReading(tp.topic());
                if (stage != null) {
                    String task = stage.taskName(tp.partition());
                    owners.put(task, id);
                    partitionsOf.computeIfAbsent(task, t -> new ArrayList<>()).add(tp);
                }
            }
        }
        return owners;
    }

    /**
     * The tasks {@code me} follows: those whose owner is one of the {@code copies} members before
     * {@code me} in the ring of members (sorted by instance id), never its own.
     */
    static Set<String> followed(Map<String, String> ownerByTask, String me, int copies) {
        List<String> members = new ArrayList<>(new TreeSet<>(ownerByTask.values()));
        if (!members.contains(me)) {
            members.add(me);
            members.sort(null);
        }
        int n = members.size();
        int mine = members.indexOf(me);
        Set<String> followed = new TreeSet<>();
        ownerByTask.forEach((task, owner) -> {
            int distance = Math.floorMod(mine - members.indexOf(owner), n);
            if (distance >= 1 && distance <= copies) {
                followed.add(task);
            }
        });
        return followed;
    }
}
