package io.weir.kafka;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

    @Test
    void aMalformedJaasConfigIsReportedWithItsCauseNotOnlyAsAFailedClient() {
        KafkaClients clients = new KafkaClients(
                "localhost:1",
                Map.of(
                        "security.protocol", "SASL_PLAINTEXT",
                        "sasl.mechanism", "PLAIN",
                        "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required"),
                Map.of(),
                Map.of(),
                Map.of());
        Topics.StartupException e = assertThrows(Topics.StartupException.class, () -> clients.admin("test"));
        assertTrue(e.getMessage().contains("cannot create the Kafka admin client"), e.getMessage());
        assertTrue(e.getMessage().toLowerCase().contains("jaas"), e.getMessage());
    }
}
