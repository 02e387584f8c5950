package io.weir.app;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.tools.OrderGenerator;
import io.weir.tools.RunningTotalsVerifier;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * An instance that left the group with a transaction open (scale-in, a renamed pod) does not stall
 * the instance that takes its partitions over until the broker's transaction timeout: the new
 * owner aborts it. On the real broker.
 */
class DepartedTransactionsIT {

    @Test
    void theNewOwnerAbortsADepartedInstancesOpenTransactionInsteadOfWaitingItOut() throws Exception {
        TotalsJob job = TotalsJob.create("departed", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 20, 3)) {
            g.send(200);
        }
        // The departed instance "gone": its epoch's transaction wrote output and sent the group's
        // offsets, then the pod went away. Its transaction timeout is ten minutes.
        Map<String, Object> p = new HashMap<>(KafkaFixture.producerConfig());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, job.application() + "-gone-0");
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int)
                Duration.ofMinutes(10).toMillis());
        try (KafkaProducer<byte[], byte[]> gone =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            gone.initTransactions();
            gone.beginTransaction();
            gone.send(new ProducerRecord<>(job.totals(), 0, null, "{}".getBytes()));
            gone.sendOffsetsToTransaction(
                    Map.of(new TopicPartition(job.orders(), 0), new OffsetAndMetadata(0, "ckpt=1")),
                    new ConsumerGroupMetadata(job.application()));
            gone.flush();

            WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
            try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
                instance.start();
                // Without the abort the new owner waits for the pending offsets (and readers for
                // the open output) until the broker aborts the transaction, ten minutes from now.
                await().atMost(KafkaFixture.TIMEOUT)
                        .pollInterval(Duration.ofMillis(250))
                        .until(() -> {
                            RunningTotalsVerifier.Result r = job.verify(true);
                            return r.outputs() >= 200 && r.ok();
                        });
            }
        }
        RunningTotalsVerifier.Result result = job.verify(true);
        assertTrue(result.ok(), result.toString());
    }
}
