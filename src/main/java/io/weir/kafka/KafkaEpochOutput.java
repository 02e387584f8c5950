package io.weir.kafka;

import io.weir.checkpoint.EpochOutput;
import io.weir.element.Header;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;

/** An epoch's output written with one Kafka producer. */
record KafkaEpochOutput(long epoch, Producer<byte[], byte[]> producer) implements EpochOutput {
    @Override
    public void send(
            String topic,
            byte[] key,
            byte[] value,
            long timestamp,
            List<Header> headers,
            Consumer<Exception> onFailure) {
        send(topic, -1, key, value, timestamp, headers, onFailure);
    }

    @Override
    public void send(
            String topic,
            int partition,
            byte[] key,
            byte[] value,
            long timestamp,
            List<Header> headers,
            Consumer<Exception> onFailure) {
        List<org.apache.kafka.common.header.Header> kafkaHeaders = List.of();
        if (!headers.isEmpty()) {
            kafkaHeaders = new ArrayList<>(headers.size());
            for (Header h : headers) {
                kafkaHeaders.add(new RecordHeader(h.key(), h.value()));
            }
        }
        producer.send(
                new ProducerRecord<>(
                        topic,
                        partition < 0 ? null : partition,
                        timestamp < 0 ? null : timestamp,
                        key,
                        value,
                        kafkaHeaders),
                (metadata, e) -> {
                    if (e != null) {
                        onFailure.accept(e);
                    }
                });
    }

    @Override
    public int partitions(String topic) {
        return producer.partitionsFor(topic).size();
    }

    @Override
    public void flush() {
        producer.flush();
    }
}
