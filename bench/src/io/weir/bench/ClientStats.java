package io.weir.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The batching of this JVM's Kafka clients, read from their JMX metrics just before a run ends:
 * per producer the average batch size and records per produce request, per consumer the average
 * fetch size and records per fetch. Few records per request mean the broker pays its per-request
 * cost more often per record.
 */
final class ClientStats {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private ClientStats() {}

    /** One line per client whose id contains {@code clientIdPart}, for the run's summary. */
    static List<String> of(String clientIdPart) {
        List<String> lines = new ArrayList<>();
        lines.addAll(read("kafka.producer:type=producer-metrics,client-id=*", clientIdPart,
                "producer", "batch-size-avg", "records-per-request-avg", "request-rate", "record-send-rate"));
        lines.addAll(read("kafka.consumer:type=consumer-fetch-manager-metrics,client-id=*", clientIdPart,
                "consumer", "fetch-size-avg", "records-per-request-avg", "fetch-rate", "records-consumed-rate"));
        return lines;
    }

    private static List<String> read(String pattern, String clientIdPart, String kind, String... attributes) {
        List<String> lines = new ArrayList<>();
        try {
            Set<ObjectName> names = JMX.queryNames(new ObjectName(pattern), null);
            for (ObjectName name : names) {
                String id = name.getKeyProperty("client-id");
                if (!id.contains(clientIdPart)) {
                    continue;
                }
                StringBuilder line = new StringBuilder("    " + kind + " " + id + ":");
                boolean sent = false; // a client that sent or fetched nothing lately has no average
                for (String a : attributes) {
                    Object v = JMX.getAttribute(name, a);
                    double d = v instanceof Double x ? x : Double.NaN;
                    sent |= a.equals(attributes[0]) && !Double.isNaN(d);
                    line.append(String.format(" %s %,.0f", a, d));
                }
                if (sent) {
                    lines.add(line.toString());
                }
            }
        } catch (Exception e) {
            lines.add("    (client metrics unreadable: " + e + ")");
        }
        return lines;
    }
}
