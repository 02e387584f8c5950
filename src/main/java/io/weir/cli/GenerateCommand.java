package io.weir.cli;

import io.weir.tools.OrderGenerator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code weir generate}: writes running-totals input ({@link OrderGenerator}) to a Kafka topic, the
 * input of the example job outside {@code weir dev} (the compose file's generator service).
 */
@Command(name = "generate", description = "Write running-totals orders to a Kafka topic at a given rate.")
public final class GenerateCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--topic", defaultValue = "orders", description = "Topic (default: ${DEFAULT-VALUE}).")
    String topic;

    @Option(
            names = "--partitions",
            defaultValue = "4",
            description = "Partitions when the topic must be created (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--rate", defaultValue = "100", description = "Orders per second (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--users", defaultValue = "1000", description = "Distinct users (default: ${DEFAULT-VALUE}).")
    int users;

    @Option(names = "--count", description = "Stop after this many orders (default: until stopped).")
    Long count;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() throws Exception {
        createTopic();
        try (OrderGenerator generator = new OrderGenerator(bootstrap, topic, users, seed)) {
            Runtime.getRuntime().addShutdownHook(new Thread(generator::stop));
            System.out.println("weir generate: " + rate + " orders/s to " + topic + " at " + bootstrap);
            generator.sendPaced(rate, count == null ? Long.MAX_VALUE : count);
            System.out.println("weir generate: sent " + generator.sent());
        }
        return 0;
    }

    private void createTopic() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            if (!admin.listTopics().names().get().contains(topic)) {
                admin.createTopics(List.of(new NewTopic(topic, partitions, (short) -1)))
                        .all()
                        .get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }
}
