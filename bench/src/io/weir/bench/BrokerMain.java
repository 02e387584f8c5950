package io.weir.bench;

import io.weir.kafka.EmbeddedKafka;

/**
 * The bench's broker in a JVM of its own ({@code --broker own-jvm}): starts the embedded single-node
 * broker, prints {@code BOOTSTRAP <host:port>} and runs until its standard input closes, so it dies
 * with the bench.
 */
public final class BrokerMain {
    private BrokerMain() {}

    public static void main(String[] args) throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            System.out.println("BOOTSTRAP " + kafka.bootstrapServers());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the bench to close the pipe (or to die)
            }
        }
        System.exit(0);
    }
}
