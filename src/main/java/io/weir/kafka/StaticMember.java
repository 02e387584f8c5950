package io.weir.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes an instance out of the job's consumer group by its {@code group.instance.id}. A static
 * member that closed without leaving stays in the group until its session timeout, holding its
 * partitions; and a consumer closed while its first join was in flight cannot leave (it has no
 * member id yet), though the broker registered it. Removing it by instance id works in either case.
 */
public final class StaticMember {
    private static final Logger LOG = LoggerFactory.getLogger(StaticMember.class);

    private StaticMember() {}

    /** Removes {@code instanceId} from {@code group} if it is a member; waits at most {@code timeout}. */
    public static void remove(KafkaClients clients, String group, String instanceId, Duration timeout) {
        try (Admin admin = clients.admin(group + "-leave")) {
            admin.removeMembersFromConsumerGroup(
                            group, new RemoveMembersFromConsumerGroupOptions(List.of(new MemberToRemove(instanceId))))
                    .all()
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("instance {} left the group {}", instanceId, group);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof UnknownMemberIdException
                    || e.getCause() instanceof GroupIdNotFoundException)) {
                LOG.warn(
                        "removing instance {} from the group {} failed: {}",
                        instanceId,
                        group,
                        e.getCause().toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("removing instance {} from the group {} failed: {}", instanceId, group, e.toString());
        }
    }
}
