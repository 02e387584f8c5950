package io.weir.fault;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.tools.RunningTotalsVerifier;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A poison pill: a value of almost the broker's record limit that is not JSON. Its dead letter
 * (the value plus Weir's headers) would exceed the limit and fail the epoch's transaction after
 * every restart; instead the dead letter keeps its provenance headers with the value cut to fit
 * (said in {@code weir.value-truncated}), and every later order is processed.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class OversizedRecordsIT {
    /**
     * As input it fits the broker's 1,048,588 bytes with ~160 to spare (batch and record overhead
     * ~75, the key); its dead letter adds Weir's headers (error, stage, task, source, topic,
     * partition, offset: over 200 bytes) and does not fit.
     */
    private static final int PILL = 1_048_350;

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void a_dead_letter_too_large_for_the_topic_is_truncated_and_the_job_goes_on() throws Exception {
        TotalsJob job = TotalsJob.create("oversized", 2);
        // The broker's default record limit (message.max.bytes) is 1048588 bytes; this fits as input
        // (with the batch's and the record's overhead) and leaves too little room for Weir's headers.
        char[] big = new char[PILL];
        Arrays.fill(big, 'x');
        Map<String, Object> config = new HashMap<>(KafkaFixture.producerConfig());
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 << 20);
        try (KafkaProducer<String, String> p =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            p.send(new ProducerRecord<>(job.orders(), 0, "u1", "{\"user\":\"u1\",\"amount\":1,\"seq\":1}"));
            p.send(new ProducerRecord<>(job.orders(), 0, "u1", new String(big))).get();
            for (int seq = 2; seq <= 100; seq++) {
                p.send(new ProducerRecord<>(
                        job.orders(), seq % 2, "u" + seq, "{\"user\":\"u" + seq + "\",\"amount\":1,\"seq\":1}"));
            }
        }
        WeirConfig weir = job.config("instance-id=oversized", "processing.checkpoint.interval=200ms");
        try (Instance instance = new Instance(Jobs.settings(weir), Jobs.clients(weir))) {
            instance.start();
            await(job.application() + " processes every order after the poison pill")
                    .atMost(TotalsJob.CATCH_UP)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (instance.stopped()) {
                            throw new AssertionError("the instance stopped", instance.awaitTermination());
                        }
                        return job.caughtUp();
                    });
            assertEquals(0, instance.stats().failovers(), "an oversized dead letter is no failure");
            assertEquals(1, instance.counters().oversizedDeadLetters.sum());
        }
        List<ConsumerRecord<String, String>> dead = KafkaFixture.readAllCommitted(job.deadLetters());
        assertEquals(1, dead.size());
        ConsumerRecord<String, String> letter = dead.get(0);
        assertEquals(String.valueOf(PILL), header(letter, "weir.value-truncated"));
        assertTrue(letter.value().length() < PILL && letter.value().startsWith("xxxx"), "cut to fit");
        assertTrue(header(letter, "weir.error").contains("not valid JSON"), header(letter, "weir.error"));
        assertEquals("1", header(letter, "weir.offset"));
        RunningTotalsVerifier.Result totals = job.verify(true);
        assertTrue(totals.ok(), totals.toString());
        assertEquals(100, totals.outputs());
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        assertNotNull(h, "header " + name);
        return new String(h.value(), StandardCharsets.UTF_8);
    }
}
