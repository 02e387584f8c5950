package io.weir.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.fixtures.Http;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.PrometheusTools;
import io.weir.fixtures.TotalsJob;
import io.weir.tools.OrderGenerator;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus server scrapes a running instance, and promtool accepts what it serves. The
 * binaries come from {@link PrometheusTools}.
 */
@Timeout(300)
class PrometheusIT {
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** The result vector of an instant query against Prometheus's HTTP API. */
    private static JsonNode query(String prometheus, String promql) throws Exception {
        String body = Http.get(prometheus + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8))
                .body();
        JsonNode root = new ObjectMapper().readTree(body);
        assertEquals("success", root.path("status").asText(), body);
        return root.path("data").path("result");
    }

    @Test
    void prometheusScrapesTheInstanceAndSeesItsCountersMove() throws Exception {
        Path prometheusBinary = PrometheusTools.prometheus();
        TotalsJob job = TotalsJob.create("prom", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 100, 7)) {
            g.send(2_000);
        }
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        Process prometheus = null;
        try (Ops ops = new Ops(instance)) {
            int weirPort = ops.serve(0);
            instance.start();
            // The compose file's Prometheus configuration, scraping this instance every second.
            String shipped = Files.readString(Path.of("config", "prometheus", "prometheus.yml"));
            assertTrue(shipped.contains("scrape_interval: 5s") && shipped.contains("\"weir:8080\""), shipped);
            Files.writeString(
                    dir.resolve("prometheus.yml"),
                    shipped.replace("scrape_interval: 5s", "scrape_interval: 1s")
                            .replace("\"weir:8080\"", "\"127.0.0.1:" + weirPort + "\""));
            int promPort = freePort();
            prometheus = new ProcessBuilder(
                            prometheusBinary.toString(),
                            "--config.file=" + dir.resolve("prometheus.yml"),
                            "--storage.tsdb.path=" + dir.resolve("data"),
                            "--web.listen-address=127.0.0.1:" + promPort)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("prometheus.log").toFile())
                    .start();
            String api = "http://127.0.0.1:" + promPort;
            String app = "{application=\"" + job.application() + "\"}";
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .untilAsserted(() -> {
                        assertTrue(query(api, "weir_records_in_total" + app + " >= 2000")
                                        .size()
                                == 1);
                        assertTrue(query(api, "weir_checkpoints_completed_total" + app + " > 0")
                                        .size()
                                == 1);
                        assertTrue(query(api, "up{job=\"weir\"} == 1").size() == 1);
                    });
            JsonNode lag = query(api, "weir_consumer_lag_records" + app);
            assertEquals(2, lag.size(), "one lag series per input partition: " + lag);
            // Weir's own instance label (the instance-id) is the one stored, not the target address.
            JsonNode in = query(api, "weir_records_in_total" + app);
            assertEquals("i1", in.get(0).at("/metric/instance").asText(), in.toString());
            assertTrue(in.get(0).at("/metric/exported_instance").isMissingNode(), in.toString());
        } finally {
            if (prometheus != null) {
                prometheus.destroy();
                if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                    prometheus.destroyForcibly();
                }
            }
            instance.close();
        }
    }

    @Test
    void promtoolAcceptsTheExposition() throws Exception {
        Path promtool = PrometheusTools.promtool();
        TotalsJob job = TotalsJob.create("promtool", 2);
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 100, 8)) {
            g.send(500);
        }
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        try (Ops ops = new Ops(instance)) {
            String url = "http://localhost:" + ops.serve(0) + "/metrics";
            instance.start();
            // Every kind of series present: checkpoints completed, lag sampled.
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).until(() -> {
                String text = Http.get(url).body();
                return Http.sample(text, "weir_checkpoints_completed_total").orElse(0) > 0
                        && Http.sample(text, "weir_consumer_lag_records").isPresent();
            });
            Path scrape = Path.of("target", "promtool-scrape.txt"); // kept for a look when it fails
            Files.writeString(scrape, Http.get(url).body());
            Process check = new ProcessBuilder(promtool.toString(), "check", "metrics")
                    .redirectInput(scrape.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("promtool.txt").toFile())
                    .start();
            assertTrue(check.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
            assertEquals(
                    0, check.exitValue(), "promtool check metrics: " + Files.readString(dir.resolve("promtool.txt")));
        } finally {
            instance.close();
        }
    }
}
