package io.weir.kafka;

import static io.weir.fixtures.KafkaFixture.TIMEOUT;
import static io.weir.fixtures.KafkaFixture.createTopic;
import static io.weir.fixtures.KafkaFixture.readAll;
import static io.weir.fixtures.KafkaFixture.readAllCommitted;
import static io.weir.fixtures.KafkaFixture.uniqueTopic;
import static io.weir.fixtures.KafkaFixture.values;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.fixtures.KafkaFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Proves the broker that tests get from {@link KafkaFixture} (the in-process {@link EmbeddedKafka}
 * when there is neither an external broker nor Docker) does what Weir relies on: transactions on
 * one node, read_committed isolation, and consumer offsets committed inside a transaction.
 */
@ExtendWith(KafkaFixture.class)
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class EmbeddedKafkaIT {

    @Test
    void a_read_committed_consumer_sees_the_committed_transactions_and_none_of_the_aborted_one() {
        String topic = createTopic(uniqueTopic("txn"), 1);

        try (KafkaProducer<String, String> producer = transactionalProducer()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed-1"));
            producer.send(new ProducerRecord<>(topic, "k", "committed-2"));
            producer.commitTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted-1"));
            producer.send(new ProducerRecord<>(topic, "k", "aborted-2"));
            // Flushing first makes the aborted records really reach the log, so the test proves they are filtered.
            producer.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed-3"));
            producer.commitTransaction();
        }

        // The commit markers are written after commitTransaction returns, so the end moves a little later.
        await().atMost(TIMEOUT)
                .untilAsserted(() -> assertEquals(
                        List.of("committed-1", "committed-2", "committed-3"), values(readAllCommitted(topic))));
        assertEquals(
                List.of("committed-1", "committed-2", "aborted-1", "aborted-2", "committed-3"),
                values(readAll(topic, IsolationLevel.READ_UNCOMMITTED)));
    }

    @Test
    void a_consume_transform_produce_transaction_commits_the_output_and_the_input_offsets_together() {
        String input = createTopic(uniqueTopic("ctp-in"), 1);
        String output = createTopic(uniqueTopic("ctp-out"), 1);
        String group = uniqueTopic("ctp-group");
        KafkaFixture.produceValues(input, "a", "b", "c");

        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(KafkaFixture.consumerConfig(group));
                KafkaProducer<String, String> producer = transactionalProducer()) {
            producer.initTransactions();
            consumer.subscribe(Set.of(input));
            List<ConsumerRecord<String, String>> consumed = pollUntil(consumer, 3);

            producer.beginTransaction();
            Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
            for (ConsumerRecord<String, String> record : consumed) {
                producer.send(new ProducerRecord<>(
                        output, record.key(), record.value().toUpperCase()));
                next.put(
                        new TopicPartition(record.topic(), record.partition()),
                        new OffsetAndMetadata(record.offset() + 1));
            }
            producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
            producer.commitTransaction();
        }

        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertEquals(List.of("A", "B", "C"), values(readAllCommitted(output)));
            assertEquals(Map.of(new TopicPartition(input, 0), 3L), committedOffsets(group));
        });
    }

    @Test
    void offsets_sent_in_an_aborted_transaction_are_not_committed() throws Exception {
        String input = createTopic(uniqueTopic("abort-in"), 1);
        String group = uniqueTopic("abort-group");
        KafkaFixture.produceValues(input, "a", "b");

        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(KafkaFixture.consumerConfig(group));
                KafkaProducer<String, String> producer = transactionalProducer()) {
            producer.initTransactions();
            consumer.subscribe(Set.of(input));
            pollUntil(consumer, 2);

            producer.beginTransaction();
            producer.sendOffsetsToTransaction(
                    Map.of(new TopicPartition(input, 0), new OffsetAndMetadata(2)), consumer.groupMetadata());
            producer.abortTransaction();
        }

        // Had the aborted offsets counted, the group would resume at 2 and see nothing.
        try (KafkaConsumer<String, String> restarted = new KafkaConsumer<>(KafkaFixture.consumerConfig(group))) {
            restarted.subscribe(Set.of(input));
            assertEquals(List.of("a", "b"), values(pollUntil(restarted, 2)));
        }
        assertEquals(Map.of(), committedOffsets(group));
    }

    private static KafkaProducer<String, String> transactionalProducer() {
        Map<String, Object> config = KafkaFixture.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, uniqueTopic("txn-id"));
        return new KafkaProducer<>(config);
    }

    private static List<ConsumerRecord<String, String>> pollUntil(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        await().atMost(TIMEOUT).until(() -> {
            consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            return records.size() >= count;
        });
        return records;
    }

    private static Map<TopicPartition, Long> committedOffsets(String group) throws Exception {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        KafkaFixture.admin()
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get()
                .forEach((partition, offset) -> {
                    if (offset != null) {
                        offsets.put(partition, offset.offset());
                    }
                });
        return offsets;
    }
}
