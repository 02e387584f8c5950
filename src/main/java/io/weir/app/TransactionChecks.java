package io.weir.app;

import io.weir.config.TransactionTimeoutRule;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.Topics;
import io.weir.kafka.TransactionalProducers;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once start-up checks of transactions: the producers' transaction timeout against the
 * broker's {@code transaction.max.timeout.ms} and the one rule ({@link TransactionTimeoutRule}), and
 * the open transactions a predecessor left under ids beyond the first block of slots. They need
 * none of the topic checks, so they run beside them, on a thread of their own and the same admin
 * client, which the owner closes only after they ended ({@link #endBeforeClose}).
 */
final class TransactionChecks {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionChecks.class);

    private final CompletableFuture<Void> done;

    private TransactionChecks(CompletableFuture<Void> done) {
        this.done = done;
    }

    /** Starts the checks beside the caller's. */
    static TransactionChecks start(Topics topics, InstanceSettings settings, KafkaClients clients) {
        return new TransactionChecks(CompletableFuture.runAsync(
                () -> {
                    checkTimeouts(settings, topics.brokerMaxTransactionTimeoutMs());
                    abortLeftovers(topics, settings, clients);
                },
                r -> Instance.named("weir-transaction-checks").newThread(r).start()));
    }

    /** Waits for the checks; their failure is the start's. */
    void await() {
        try {
            done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Topics.StartupException("interrupted during the start-up checks", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new Topics.StartupException("a start-up check failed: " + e.getCause(), e.getCause());
        }
    }

    /** After another check failed: lets these end (their outcome no longer matters) before the admin client closes. */
    void endBeforeClose() {
        if (done.isDone()) {
            return;
        }
        try {
            done.get(60, TimeUnit.SECONDS); // as long as one admin request may take
        } catch (Exception e) {
            LOG.debug("the transaction checks after a failed start: {}", e.toString());
        }
    }

    private static void checkTimeouts(InstanceSettings settings, long brokerMaxMs) {
        long txMs = settings.transactionTimeout().toMillis();
        if (txMs > brokerMaxMs) {
            throw new Topics.StartupException("processing.transaction-timeout (" + txMs + " ms) exceeds the broker's "
                    + "transaction.max.timeout.ms (" + brokerMaxMs + " ms): lower the one or raise the other");
        }
        TransactionTimeoutRule.violation(
                        settings.transactionTimeout(),
                        settings.checkpoint().interval(),
                        settings.checkpoint().timeout())
                .ifPresent(problem -> {
                    throw new Topics.StartupException(problem);
                });
    }

    /**
     * Open transactions a predecessor of this instance left under ids beyond the first block of
     * slots (executions that ran side by side, or a pool that shrank) are aborted; the first block's
     * are aborted by the first execution's producers.
     */
    private static void abortLeftovers(Topics topics, InstanceSettings settings, KafkaClients clients) {
        String prefix = settings.transactionalIdPrefix();
        int poolSize = Execution.poolSize(settings);
        for (String id : topics.transactionalIds(prefix)) {
            String slot = id.substring(prefix.length());
            if (slot.matches("\\d+") && Integer.parseInt(slot) >= poolSize) {
                LOG.info("aborting leftover transaction {} (beyond the first {} slots)", id, poolSize);
                TransactionalProducers.abortLeftover(
                        clients, id, settings.transactionTimeout().toMillis());
            }
        }
    }
}
