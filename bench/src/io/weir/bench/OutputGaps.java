package io.weir.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * How long committed output stopped after each churn event of {@code bench/run-churn.sh}.
 *
 * <pre>
 * watch BOOTSTRAP TOPIC FILE    reads TOPIC read_committed until killed; per poll that returned
 *                               records, one line "PARTITION EPOCH_MS" per partition that had some
 * report FILE EVENTS            EVENTS: lines "EPOCH_MS what happened"; prints, for the time from
 *                               each event to the next, the longest gap between arrivals overall
 *                               and in the worst partition
 * </pre>
 *
 * <p>Arrival is when a read_committed reader got the records, so a gap includes the commit interval
 * (the checkpoint's): with 1 s checkpoints a steady job shows gaps of about a second.
 */
final class OutputGaps {
    private OutputGaps() {}

    static void watch(String bootstrap, String topic, Path file) throws IOException {
        Properties config = new Properties();
        config.put("bootstrap.servers", bootstrap);
        config.put("isolation.level", "read_committed");
        config.put("enable.auto.commit", "false");
        config.put("allow.auto.create.topics", "false"); // the job makes it, with its input's partition count
        try (KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            List<TopicPartition> partitions = List.of();
            while (partitions.isEmpty()) { // the job creates its output topic when it starts
                partitions = consumer.partitionsFor(topic, Duration.ofSeconds(5)).stream()
                        .map(p -> new TopicPartition(topic, p.partition()))
                        .toList();
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (true) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(50));
                long now = System.currentTimeMillis();
                for (TopicPartition tp : records.partitions()) {
                    out.write(tp.partition() + " " + now + "\n");
                }
                out.flush();
            }
        }
    }

    static void report(Path arrivalsFile, Path eventsFile) throws IOException {
        Map<Integer, List<Long>> arrivals = new TreeMap<>();
        List<Long> any = new ArrayList<>();
        for (String line : Files.readAllLines(arrivalsFile, StandardCharsets.UTF_8)) {
            String[] f = line.split(" ");
            if (f.length < 2) {
                continue; // the last line, cut by the kill
            }
            long t = Long.parseLong(f[1]);
            arrivals.computeIfAbsent(Integer.parseInt(f[0]), p -> new ArrayList<>()).add(t);
            if (any.isEmpty() || any.get(any.size() - 1) != t) {
                any.add(t);
            }
        }
        List<String> events = Files.readAllLines(eventsFile, StandardCharsets.UTF_8);
        System.out.println("longest gap in committed output after each event (ms): overall / worst partition");
        for (int i = 0; i + 1 < events.size(); i++) {
            String[] event = events.get(i).split(" ", 2);
            long from = Long.parseLong(event[0]);
            long to = Long.parseLong(events.get(i + 1).split(" ", 2)[0]);
            long worst = 0;
            for (List<Long> times : arrivals.values()) {
                worst = Math.max(worst, longestGap(times, from, to));
            }
            System.out.printf("  %-45s %6d / %6d%n", event[1], longestGap(any, from, to), worst);
        }
    }

    /** The longest time in [from, to] without an arrival; the time after the very last arrival is no gap. */
    static long longestGap(List<Long> times, long from, long to) {
        if (times.isEmpty()) {
            return to - from;
        }
        long end = Math.min(to, times.get(times.size() - 1));
        long last = from;
        long gap = 0;
        for (long t : times) {
            if (t >= from && t <= end) {
                gap = Math.max(gap, t - last);
                last = t;
            }
        }
        return end <= from ? 0 : Math.max(gap, end - last);
    }
}
