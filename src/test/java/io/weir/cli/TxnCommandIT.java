package io.weir.cli;

import static io.weir.fixtures.KafkaFixture.createTopic;
import static io.weir.fixtures.KafkaFixture.readAllCommitted;
import static io.weir.fixtures.KafkaFixture.uniqueTopic;
import static io.weir.fixtures.KafkaFixture.values;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.fixtures.KafkaFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code weir txn} on the real broker: transactions left open under job-shaped transactional ids
 * ({@code <app>-<instance-id>-<slot>}), one by an instance that left the group and one by a live
 * member, hold back the last stable offset; {@code txn list} shows them with owner and age,
 * {@code txn abort} aborts the departed one only (the LSO moves past it), {@code --force} the other.
 */
@ExtendWith(KafkaFixture.class)
class TxnCommandIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void listsOpenTransactionsAndAbortsThoseOfDepartedInstances() throws Exception {
        String app = uniqueTopic("txnapp");
        String input = createTopic(uniqueTopic("txn-in"), 1);
        Path job = Files.writeString(
                temp.resolve("job.yaml"),
                "application: " + app + "\n"
                        + "kafka: { bootstrap: \"" + KafkaFixture.bootstrap() + "\" }\n"
                        + "pipeline:\n"
                        + "  - source: { topic: " + input + ", format: json }\n"
                        + "  - sink: { topic: " + input + "-out, format: json }\n");

        // A live member of the job's group (static membership, as a Weir instance joins).
        KafkaConsumer<String, String> member = liveMember(app, "pod-live", input);
        // pod-gone wrote A and went away without ending its transaction; then B was committed;
        // pod-live has C open.
        KafkaProducer<String, String> gone = openTransaction(app + "-pod-gone-0", input, "A");
        KafkaFixture.produce(input, "k", "B");
        KafkaProducer<String, String> live = openTransaction(app + "-pod-live-1", input, "C");
        assertEquals(List.of(), values(readAllCommitted(input)), "the open transaction holds back the LSO");

        long before = System.currentTimeMillis();
        Run list = weir("txn", "list", "--json", "--config", job.toString());
        assertEquals(0, list.code, list::toString);
        JsonNode listed = JSON.readTree(list.out).get("transactions");
        assertEquals(2, listed.size(), list.out);
        JsonNode first = listed.get(0);
        assertEquals(app + "-pod-gone-0", first.get("transactionalId").asText());
        assertEquals("pod-gone", first.get("owner").asText());
        assertEquals(false, first.get("ownerIsMember").asBoolean());
        assertTrue(first.get("state").asText().equalsIgnoreCase("ongoing"), list.out);
        assertTrue(first.get("startTimeMs").asLong() <= before, list.out);
        assertTrue(first.get("ageMs").asLong() >= 0, list.out);
        assertEquals(input + "-0", first.get("partitions").get(0).asText());
        JsonNode second = listed.get(1);
        assertEquals("pod-live", second.get("owner").asText());
        assertEquals(true, second.get("ownerIsMember").asBoolean());

        Run table = weir("txn", "list", "--config", job.toString());
        assertEquals(0, table.code, table::toString);
        String goneLine = table.out
                .lines()
                .filter(l -> l.startsWith(app + "-pod-gone-0 "))
                .findFirst()
                .orElseThrow(() -> new AssertionError(table.out));
        assertTrue(goneLine.matches(".* pod-gone +no +Ongoing +\\d+s .*" + input + "-0"), goneLine);

        // abort: the departed instance's transaction only; the live member's is left open (exit 1).
        Run abort = weir("txn", "abort", "--json", "--config", job.toString());
        assertEquals(TxnCommand.LEFT_OPEN, abort.code, abort::toString);
        JsonNode result = JSON.readTree(abort.out);
        assertEquals(
                app + "-pod-gone-0", result.at("/aborted/0/transactionalId").asText(), abort.out);
        assertEquals(1, result.get("aborted").size(), abort.out);
        assertEquals(
                app + "-pod-live-1", result.at("/leftOpen/0/transactionalId").asText(), abort.out);
        assertTrue(result.at("/leftOpen/0/reason").asText().contains("--force"), abort.out);
        // The LSO moved past A (aborted) to C: B is visible now.
        assertEquals(List.of("B"), values(readAllCommitted(input)));
        Run after = weir("txn", "list", "--json", "--config", job.toString());
        assertEquals(1, JSON.readTree(after.out).get("transactions").size(), after.out);

        // A named instance that is a live member needs --force.
        Run refused = weir("txn", "abort", "--instance", "pod-live", "--config", job.toString());
        assertEquals(TxnCommand.LEFT_OPEN, refused.code, refused::toString);
        assertTrue(
                refused.out.contains("left open " + app + "-pod-live-1: instance pod-live is a member"), refused.out);
        Run forced = weir("txn", "abort", "--instance", "pod-live", "--force", "--config", job.toString());
        assertEquals(0, forced.code, forced::toString);
        assertTrue(forced.out.startsWith("aborted " + app + "-pod-live-1 (owner pod-live"), forced.out);
        assertEquals(
                "no open transactions of " + app + System.lineSeparator(),
                weir("txn", "list", "--config", job.toString()).out);
        KafkaFixture.produce(input, "k", "D");
        assertEquals(List.of("B", "D"), values(readAllCommitted(input)));
        assertTrue(member.assignment().size() == 1);
    }

    @Test
    void anUnknownActionIsRefused() throws Exception {
        Run run = weir("txn", "close", "--config", "config/examples/running-totals.yaml");
        assertEquals(2, run.code);
        assertTrue(run.err.contains("unknown action 'close', expected list or abort"), run.err);
    }

    private KafkaProducer<String, String> openTransaction(String transactionalId, String topic, String value)
            throws Exception {
        Map<String, Object> config = KafkaFixture.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        KafkaProducer<String, String> p = new KafkaProducer<>(config);
        closing.add(() -> p.close(Duration.ZERO));
        p.initTransactions();
        p.beginTransaction();
        p.send(new ProducerRecord<>(topic, "k", value)).get();
        return p;
    }

    private KafkaConsumer<String, String> liveMember(String group, String instanceId, String topic) {
        Map<String, Object> config = new HashMap<>(KafkaFixture.consumerConfig(group));
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        KafkaConsumer<String, String> c = new KafkaConsumer<>(config);
        closing.add(c);
        c.subscribe(List.of(topic));
        long deadline = System.nanoTime() + KafkaFixture.TIMEOUT.toNanos();
        while (c.assignment().isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(instanceId + " did not join group " + group);
            }
            c.poll(Duration.ofMillis(100));
        }
        return c;
    }

    private record Run(int code, String out, String err) {}

    private static Run weir(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        picocli.CommandLine cli = WeirCommand.commandLine(args);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }
}
