package io.weir.ops;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.app.Seams;
import io.weir.checkpoint.CheckpointIo;
import io.weir.checkpoint.TaskCheckpoint;
import io.weir.config.WeirConfig;
import io.weir.element.InputPartition;
import io.weir.fixtures.ForwardingSnapshotStore;
import io.weir.fixtures.Http;
import io.weir.fixtures.KafkaFixture;
import io.weir.fixtures.TotalsJob;
import io.weir.state.SnapshotStore;
import io.weir.state.StoredFile;
import io.weir.tools.OrderGenerator;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The HTTP endpoint of an in-process instance running the example job on the test broker. */
@Timeout(240)
class OpsEndpointsIT {
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    private static void produce(TotalsJob job, long count, long seed) {
        try (OrderGenerator g = new OrderGenerator(KafkaFixture.bootstrap(), job.orders(), 100, seed)) {
            g.send(count);
        }
    }

    private static JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    /** A snapshot store whose reads wait until {@code released}: a restore that takes as long as the test wants. */
    private static UnaryOperator<SnapshotStore> blockingReads(CountDownLatch released) {
        return store -> new ForwardingSnapshotStore(store) {
            private void await() throws IOException {
                try {
                    if (!released.await(2, TimeUnit.MINUTES)) {
                        throw new IOException("the test never released the restore");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }

            @Override
            public byte[] read(StoredFile file) throws IOException {
                await();
                return super.read(file);
            }

            @Override
            public void download(StoredFile file, Path target) throws IOException {
                await();
                super.download(file, target);
            }

            @Override
            public void downloadAll(java.util.Map<StoredFile, Path> files) throws IOException {
                await();
                super.downloadAll(files);
            }
        };
    }

    @Test
    void readinessSaysWhyNotUntilTheTasksAreRestoredAndACheckpointCompleted() throws Exception {
        TotalsJob job = TotalsJob.create("ops-ready", 2);
        produce(job, 2_000, 1);
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        Instance first = new Instance(Jobs.settings(config), Jobs.clients(config));
        try (Ops ops = new Ops(first)) {
            String url = "http://localhost:" + ops.serve(0);

            HttpResponse<String> starting = Http.get(url + "/health/ready");
            assertEquals(503, starting.statusCode());
            assertEquals("not-ready", json(starting).get("status").asText());
            assertEquals("starting", json(starting).get("reason").asText());
            assertEquals(200, Http.get(url + "/health/live").statusCode());

            first.start();
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(url + "/health/ready").statusCode() == 200);
            assertEquals(
                    "ready", json(Http.get(url + "/health/ready")).get("status").asText());
            await().atMost(DEADLINE).until(() -> job.committedInput() >= 2_000);
        } finally {
            first.close();
        }
        assertTrue(first.stopped());

        // A second instance in another state directory downloads the state: hold that download.
        CountDownLatch released = new CountDownLatch(1);
        WeirConfig moved = job.config(
                "instance-id=i1",
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + job.stateDir().resolve("elsewhere"));
        Instance second = new Instance(
                Jobs.settings(moved),
                Jobs.clients(moved),
                new Seams(blockingReads(released), UnaryOperator.identity()));
        try (Ops ops = new Ops(second)) {
            String url = "http://localhost:" + ops.serve(0);
            second.start();
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                HttpResponse<String> r = Http.get(url + "/health/ready");
                assertEquals(503, r.statusCode());
                assertTrue(json(r).get("reason").asText().startsWith("restoring tasks "), "reason: " + r.body());
            });
            released.countDown();
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(url + "/health/ready").statusCode() == 200);
            String metrics = Http.get(url + "/metrics").body();
            String app = "application=\"" + job.application() + "\"";
            assertTrue(
                    Http.sample(metrics, "weir_restore_downloaded_bytes_total", app)
                                    .orElse(0)
                            > 0,
                    metrics);
            assertEquals(
                    0,
                    Http.sample(metrics, "weir_restore_local_bytes_total", app).orElse(-1),
                    metrics);
        } finally {
            released.countDown();
            second.close();
        }

        // Back in the first directory, the files of the same checkpoint are still there: local recovery.
        Instance third = new Instance(Jobs.settings(config), Jobs.clients(config));
        try (Ops ops = new Ops(third)) {
            String url = "http://localhost:" + ops.serve(0);
            String app = "application=\"" + job.application() + "\"";
            third.start();
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
                String metrics = Http.get(url + "/metrics").body();
                assertTrue(
                        Http.sample(metrics, "weir_restore_local_bytes_total", app)
                                        .orElse(0)
                                > 0,
                        metrics);
            });
        } finally {
            third.close();
        }
    }

    @Test
    void clientsStalledMidRequestNeitherKeepTheProbesFromAnsweringNorHoldTheirConnections() throws Exception {
        // In a weir run of its own: the JDK server's request time limit is set once per process.
        TotalsJob job = TotalsJob.create("ops-stall", 2);
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        io.weir.fixtures.WeirProcess weir = io.weir.fixtures.WeirProcess.run(
                        "ops-stall", TotalsJob.EXAMPLE, job.overrides("instance-id=i1", "http.port=" + port))
                .start();
        List<java.net.Socket> stalled = new java.util.ArrayList<>();
        try {
            String url = "http://localhost:" + port;
            await().atMost(DEADLINE)
                    .ignoreExceptions()
                    .until(() -> Http.get(url + "/health/live").statusCode() == 200);
            for (int i = 0; i < 3; i++) {
                java.net.Socket socket = new java.net.Socket("localhost", port);
                // A request line and a header, but never the blank line that ends the headers.
                socket.getOutputStream()
                        .write("GET /metrics HTTP/1.1\r\nHost: x\r\n"
                                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                socket.getOutputStream().flush();
                stalled.add(socket);
            }
            assertEquals(200, Http.get(url + "/health/live").statusCode());
            assertTrue(Http.get(url + "/metrics").body().contains("weir_records_in_total"));
            for (java.net.Socket socket : stalled) {
                socket.setSoTimeout((int) DEADLINE.toMillis());
                int read;
                try {
                    read = socket.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    read = -1; // closed by the server, as a reset
                }
                assertEquals(-1, read, "the server closed the stalled request's connection");
            }
        } finally {
            for (java.net.Socket socket : stalled) {
                socket.close();
            }
            weir.stop();
        }
    }

    /** More replicas than partitions: the member without a partition must be ready too, or a rollout never ends. */
    @Test
    void aMemberThatTheGroupAssignsNoPartitionIsReady() throws Exception {
        TotalsJob job = TotalsJob.create("ops-ready-empty", 1);
        produce(job, 100, 2);
        WeirConfig one = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        WeirConfig two = job.config(
                "instance-id=i2",
                "processing.checkpoint.interval=200ms",
                "processing.state.dir=" + job.stateDir().resolve("i2"));
        Instance first = new Instance(Jobs.settings(one), Jobs.clients(one));
        Instance second = new Instance(Jobs.settings(two), Jobs.clients(two));
        try (Ops a = new Ops(first);
                Ops b = new Ops(second)) {
            String urlA = "http://localhost:" + a.serve(0);
            String urlB = "http://localhost:" + b.serve(0);
            first.start();
            second.start();
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> first.assignedNothing() != second.assignedNothing()
                            && Http.get(urlA + "/health/ready").statusCode() == 200
                            && Http.get(urlB + "/health/ready").statusCode() == 200);
            await().atMost(DEADLINE).until(() -> job.committedInput() >= 100);
        } finally {
            first.close();
            second.close();
        }
    }

    @Test
    void metricsMoveWithTheJobAndCheckpointsListPhasesAndSizes() throws Exception {
        TotalsJob job = TotalsJob.create("ops-metrics", 2);
        produce(job, 3_000, 2);
        WeirConfig config = job.config("instance-id=i1", "processing.checkpoint.interval=200ms");
        Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config));
        try (Ops ops = new Ops(instance)) {
            String url = "http://localhost:" + ops.serve(0);
            String app = "application=\"" + job.application() + "\"";
            instance.start();
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> Http.sample(Http.get(url + "/metrics").body(), "weir_records_in_total", app)
                                    .orElse(0)
                            >= 3_000);
            await().atMost(DEADLINE).until(() -> job.committedInput() >= 3_000);

            String metrics = Http.get(url + "/metrics").body();
            assertEquals(
                    "text/plain; version=0.0.4; charset=utf-8",
                    Http.get(url + "/metrics")
                            .headers()
                            .firstValue("Content-Type")
                            .orElse(""));
            assertTrue(Http.sample(metrics, "weir_records_out_total", app).orElse(0) >= 3_000, metrics);
            assertEquals(
                    0,
                    Http.sample(metrics, "weir_records_dead_lettered_total", app)
                            .orElse(-1));
            assertTrue(
                    Http.sample(metrics, "weir_checkpoints_completed_total", app)
                                    .orElse(0)
                            > 0,
                    metrics);
            assertTrue(
                    Http.sample(metrics, "weir_checkpoint_duration_seconds_count", app)
                                    .orElse(0)
                            > 0,
                    metrics);
            for (String phase : new String[] {"alignment", "sync", "upload", "commit"}) {
                String name = "weir_checkpoint_" + phase + "_seconds_bucket";
                assertTrue(Http.sample(metrics, name, app, "le=\"+Inf\"").orElse(0) > 0, name);
            }
            assertTrue(
                    Http.sample(metrics, "weir_checkpoint_uploaded_bytes_sum", app)
                                    .orElse(0)
                            > 0,
                    metrics);
            assertTrue(
                    Http.sample(metrics, "weir_checkpoint_last_completed_age_seconds", app)
                            .isPresent(),
                    metrics);
            assertTrue(Http.sample(metrics, "weir_restore_seconds_count", app).orElse(0) >= 1, metrics);
            assertTrue(Http.sample(metrics, "weir_rebalances_total", app).orElse(0) >= 1, metrics);
            assertEquals(0, Http.sample(metrics, "weir_failovers_total", app).orElse(-1));
            assertTrue(
                    Http.sample(
                                    metrics,
                                    "weir_consumer_lag_records",
                                    app,
                                    "topic=\"" + job.orders() + "\"",
                                    "partition=\"1\"")
                            .isPresent(),
                    metrics);
            assertTrue(
                    Http.sample(metrics, "weir_task_state_checkpoint_bytes", app, "task=\"")
                                    .orElse(0)
                            > 0,
                    metrics);
            assertTrue(Http.sample(metrics, "jvm_memory_used_bytes", app).isPresent(), metrics);
            for (String rocksDb : new String[] {"live_data", "sst_files", "memtables"}) {
                String name = "weir_task_rocksdb_" + rocksDb + "_bytes";
                assertTrue(Http.sample(metrics, name, app, "task=\"").isPresent(), name + ": " + metrics);
            }
            // A snapshot does not flush, and a job without new input takes no checkpoints: a task's
            // data reaches an SST file at a preparation, and the gauge shows it at the next barrier.
            // A trickle of input keeps both coming until each task reports its SST files.
            AtomicInteger seed = new AtomicInteger(100);
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                String now = Http.get(url + "/metrics").body();
                for (int partition = 0; partition < 2; partition++) {
                    String task = "task=\"" + job.application() + "-" + partition + "\"";
                    if (Http.sample(now, "weir_task_rocksdb_sst_files_bytes", app, task)
                                    .orElse(0)
                            <= 0) {
                        produce(job, 50, seed.incrementAndGet());
                        fail(task + " reports no SST files: " + now);
                    }
                }
            });
            assertTrue(metrics.contains("\nkafka_consumer_"), "the source consumer's client metrics");

            // Moving values: more input, more records in, more checkpoints.
            String before = Http.get(url + "/metrics").body();
            double checkpoints =
                    Http.sample(before, "weir_checkpoints_completed_total", app).orElseThrow();
            double in = Http.sample(before, "weir_records_in_total", app).orElseThrow();
            produce(job, 1_000, 3);
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                String now = Http.get(url + "/metrics").body();
                assertTrue(Http.sample(now, "weir_records_in_total", app).orElse(0) >= in + 1_000, now);
                assertTrue(
                        Http.sample(now, "weir_checkpoints_completed_total", app)
                                        .orElse(0)
                                > checkpoints,
                        now);
            });

            JsonNode history = json(Http.get(url + "/checkpoints"));
            assertTrue(history.get("lastCompletedId").asLong() > 0, history.toString());
            JsonNode completed = null;
            for (JsonNode c : history.get("checkpoints")) {
                if (c.get("status").asText().equals("completed")
                        && c.get("uploadedBytes").asLong() > 0) {
                    completed = c;
                    break;
                }
            }
            assertTrue(completed != null, history.toString());
            JsonNode d = completed.get("durationsMillis");
            assertTrue(d.get("total").asLong() >= d.get("commit").asLong(), completed.toString());
            assertTrue(d.has("alignment") && d.has("sync") && d.has("upload"), completed.toString());
            assertEquals(2, completed.get("stateBytes").size(), completed.toString());
            for (JsonNode size : completed.get("stateBytes")) {
                assertTrue(size.asLong() > 0, completed.toString());
            }
            assertTrue(history.get("checkpoints").size() <= Ops.HISTORY);
        } finally {
            instance.close();
        }
    }

    /** Checkpoint I/O whose second commit fails (before committing), once. */
    private static UnaryOperator<CheckpointIo> secondCommitFails() {
        AtomicInteger commits = new AtomicInteger();
        return io -> new CheckpointIo() {
            @Override
            public boolean canOpenEpoch() {
                return io.canOpenEpoch();
            }

            @Override
            public void openEpoch(long epoch) {
                io.openEpoch(epoch);
            }

            @Override
            public void injectBarrier(long checkpointId) {
                io.injectBarrier(checkpointId);
            }

            @Override
            public void commit(
                    long checkpointId,
                    List<TaskCheckpoint> tasks,
                    Map<InputPartition, Long> positions,
                    Object fencingToken)
                    throws Exception {
                if (commits.incrementAndGet() == 2) {
                    throw new IOException("injected: commit " + checkpointId + " fails");
                }
                io.commit(checkpointId, tasks, positions, fencingToken);
            }
        };
    }

    @Test
    void aFailedCheckpointIsCountedWithItsFailoverAndRestart() throws Exception {
        TotalsJob job = TotalsJob.create("ops-failover", 2);
        produce(job, 2_000, 4);
        WeirConfig config = job.config(
                "instance-id=i1", "processing.checkpoint.interval=200ms", "processing.restart.initial-backoff=100ms");
        Instance instance = new Instance(
                Jobs.settings(config), Jobs.clients(config), new Seams(UnaryOperator.identity(), secondCommitFails()));
        try (Ops ops = new Ops(instance)) {
            String url = "http://localhost:" + ops.serve(0);
            String app = "application=\"" + job.application() + "\"";
            instance.start();
            // The first checkpoint takes the first batch; the second, which fails, needs new input.
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.sample(Http.get(url + "/metrics").body(), "weir_checkpoints_completed_total", app)
                                    .orElse(0)
                            >= 1);
            produce(job, 1_000, 5);
            await().atMost(DEADLINE).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
                String metrics = Http.get(url + "/metrics").body();
                assertEquals(
                        1,
                        Http.sample(metrics, "weir_checkpoints_failed_total", app)
                                .orElse(0),
                        metrics);
                assertEquals(
                        1, Http.sample(metrics, "weir_failovers_total", app).orElse(0), metrics);
                assertEquals(1, Http.sample(metrics, "weir_restarts_total", app).orElse(0), metrics);
                assertEquals(
                        2,
                        Http.sample(metrics, "weir_restore_seconds_count", app).orElse(0),
                        metrics);
                assertTrue(
                        Http.sample(metrics, "weir_checkpoints_completed_total", app)
                                        .orElse(0)
                                >= 2,
                        metrics);
            });
            await().atMost(DEADLINE)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> Http.get(url + "/health/ready").statusCode() == 200);
            JsonNode history = json(Http.get(url + "/checkpoints"));
            boolean failed = false;
            for (JsonNode c : history.get("checkpoints")) {
                failed |= c.get("status").asText().equals("failed")
                        && c.get("failure").asText().startsWith("COMMIT_FAILED");
            }
            assertTrue(failed, history.toString());
        } finally {
            instance.close();
        }
    }
}
