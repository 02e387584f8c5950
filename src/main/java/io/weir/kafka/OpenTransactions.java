package io.weir.kafka;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * The open transactions of a job, for operators ({@code weir txn}): those whose transactional id
 * is one of the job's, {@code <application>-<instance-id>-<slot>} (see
 * {@link TransactionalProducers}), with their state, age, partitions and owner — the instance-id
 * in the id — and whether that owner is still a member of the job's consumer group.
 *
 * <p>An open transaction holds back the last stable offset of every partition it wrote to, so
 * read_committed readers (the next stage, downstream consumers) see nothing past it until it
 * ends; the broker aborts it after its transaction timeout at the latest. {@link #abort} ends it
 * at once by initialising a producer under its id, which fences the owner's producer and aborts
 * the transaction — what a restarted owner would do itself.
 */
public final class OpenTransactions {
    /** The states in which a transaction holds back the last stable offset. */
    static final Set<TransactionState> OPEN = Set.of(
            TransactionState.ONGOING,
            TransactionState.PREPARE_COMMIT,
            TransactionState.PREPARE_ABORT,
            TransactionState.PREPARE_EPOCH_FENCE);

    private static final long TIMEOUT_S = 30;

    /** One open transaction of the job. {@code startMs} is empty when the broker did not say. */
    public record Open(
            String transactionalId,
            String owner,
            boolean ownerIsMember,
            String state,
            OptionalLong startMs,
            long timeoutMs,
            long producerId,
            int producerEpoch,
            List<String> partitions) {
        /** Milliseconds since the transaction started at {@code nowMs}, or -1 if unknown. */
        public long ageMs(long nowMs) {
            return startMs.isPresent() ? Math.max(0, nowMs - startMs.getAsLong()) : -1;
        }
    }

    private final Admin admin;
    private final String application;

    public OpenTransactions(Admin admin, String application) {
        this.admin = admin;
        this.application = application;
    }

    /**
     * The instance-id a transactional id of this application names, or empty if it is no id of the
     * job's producer pool. (An application whose name extends this one's by {@code -…}, e.g.
     * {@code orders} and {@code orders-eu}, shares the prefix: its ids appear here too, with an owner
     * that starts with the rest of its name.)
     */
    public Optional<String> owner(String transactionalId) {
        String prefix = application + "-";
        if (!transactionalId.startsWith(prefix)) {
            return Optional.empty();
        }
        Matcher m = SLOT.matcher(transactionalId.substring(prefix.length()));
        return m.matches() ? Optional.of(m.group(1)) : Optional.empty();
    }

    private static final Pattern SLOT = Pattern.compile("(.+)-(\\d+)");

    /** The job's open transactions, oldest first. */
    public List<Open> list() throws ExecutionException, InterruptedException, TimeoutException {
        List<String> ids = new ArrayList<>();
        for (TransactionListing t : admin.listTransactions(new ListTransactionsOptions().filterStates(OPEN))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)) {
            if (owner(t.transactionalId()).isPresent()) {
                ids.add(t.transactionalId());
            }
        }
        if (ids.isEmpty()) {
            return List.of();
        }
        Map<String, TransactionDescription> described =
                admin.describeTransactions(ids).all().get(TIMEOUT_S, TimeUnit.SECONDS);
        Set<String> members = members();
        List<Open> open = new ArrayList<>();
        described.forEach((id, d) -> {
            if (OPEN.contains(d.state())) {
                String owner = owner(id).orElseThrow();
                List<String> partitions = new ArrayList<>(new TreeSet<>(d.topicPartitions().stream()
                        .map(tp -> tp.topic() + "-" + tp.partition())
                        .toList()));
                open.add(new Open(
                        id,
                        owner,
                        members.contains(owner),
                        d.state().toString(),
                        d.transactionStartTimeMs(),
                        d.transactionTimeoutMs(),
                        d.producerId(),
                        d.producerEpoch(),
                        partitions));
            }
        });
        open.sort(Comparator.comparingLong((Open o) -> o.startMs().orElse(Long.MAX_VALUE))
                .thenComparing(Open::transactionalId));
        return open;
    }

    /** The group.instance.id of every current member of the job's consumer group. */
    public Set<String> members() throws ExecutionException, InterruptedException, TimeoutException {
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(application))
                    .describedGroups()
                    .get(application)
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            Set<String> members = new TreeSet<>();
            for (MemberDescription m : group.members()) {
                m.groupInstanceId().ifPresent(members::add);
            }
            return members;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Set.of();
            }
            throw e;
        }
    }

    /**
     * Aborts the transaction open under {@code transactionalId}: a producer initialised with that
     * id fences the owner's producer and aborts what it left open, then closes.
     */
    public static void abort(KafkaClients clients, String transactionalId, long transactionTimeoutMs) {
        TransactionalProducers.abortLeftover(clients, transactionalId, transactionTimeoutMs);
    }
}
