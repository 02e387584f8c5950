package io.weir.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.Helm;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * The Helm chart {@code helm/weir}, linted and rendered by a real Helm 3 with each values file of
 * {@code helm/weir/ci}, and the rendered manifests checked: what makes a pod a Weir instance
 * (instance-id from the pod name), its probes, volumes, security context and the job it runs.
 */
class HelmChartTest {
    private static final Path CHART = Path.of("helm/weir").toAbsolutePath();
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** What the pod would have in its environment: the pod name and the Secret-backed variables. */
    private static final Map<String, String> POD_ENV = Map.of(
            "POD_NAME", "weir-test-1",
            "KAFKA_SASL_JAAS_CONFIG",
                    "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"u\" password=\"p\";",
            "KAFKA_TRUSTSTORE_PASSWORD", "changeit");

    @TempDir
    Path temp;

    @ParameterizedTest
    @ValueSource(strings = {"defaults", "persistence", "monitoring", "sasl"})
    void lintsStrictWithEachCiValuesFile(String values) throws Exception {
        Helm.Result lint = Helm.run(CHART, "lint", "--strict", ".", "-f", "ci/" + values + "-values.yaml");
        assertEquals(0, lint.exitCode(), lint::describe);
    }

    @ParameterizedTest
    @ValueSource(strings = {"defaults", "persistence", "monitoring", "sasl"})
    void everyPodIsAWeirInstanceNamedByItsPod(String values) throws Exception {
        Map<String, List<JsonNode>> kinds = render("ci/" + values + "-values.yaml");
        JsonNode sts = one(kinds, "StatefulSet");
        JsonNode pod = sts.at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");

        // instance-id: the job file says ${POD_NAME}, the downward API sets it to the pod's name.
        JsonNode podName = env(container, "POD_NAME");
        assertEquals(
                "metadata.name", podName.at("/valueFrom/fieldRef/fieldPath").asText(), podName::toString);
        String jobText = one(kinds, "ConfigMap").at("/data/job.yaml").asText();
        assertEquals("${POD_NAME}", YAML.readTree(jobText).get("instance-id").asText(), jobText);

        // The job validates as `weir validate` checks it, in the pod's environment.
        Path job = Files.writeString(temp.resolve("job.yaml"), jobText);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine validate = new CommandLine(new ValidateCommand(POD_ENV));
        validate.setOut(new PrintWriter(out));
        validate.setErr(new PrintWriter(err));
        assertEquals(0, validate.execute("--config", job.toString()), () -> err + "\n" + jobText);
        WeirConfig loaded = new ConfigLoader().load(job, POD_ENV, List.of());
        assertEquals("weir-test-1", loaded.instanceId());
        assertEquals(Path.of("/var/lib/weir"), loaded.processing().state().dir());

        // The job file is mounted where the image's `weir run --config /etc/weir/job.yaml` reads it.
        JsonNode jobMount = mount(container, "job");
        assertEquals("/etc/weir/job.yaml", jobMount.get("mountPath").asText());
        assertEquals("job.yaml", jobMount.get("subPath").asText());
        assertEquals(
                one(kinds, "ConfigMap").at("/metadata/name").asText(),
                volume(pod, "job").at("/configMap/name").asText());

        // Probes on the health paths, on the port the job's http.port serves.
        int port = loaded.http().port();
        assertEquals(port, container.at("/ports/0/containerPort").asInt());
        assertEquals("http", container.at("/ports/0/name").asText());
        assertEquals("/health/live", container.at("/livenessProbe/httpGet/path").asText());
        assertEquals(
                "/health/ready", container.at("/readinessProbe/httpGet/path").asText());
        assertEquals("http", container.at("/readinessProbe/httpGet/port").asText());
        assertEquals("/health/live", container.at("/startupProbe/httpGet/path").asText());
        JsonNode service = kinds.get("Service").stream()
                .filter(s -> !s.at("/spec/clusterIP").asText().equals("None"))
                .findFirst()
                .orElseThrow();
        assertEquals(port, service.at("/spec/ports/0/port").asInt());
        assertEquals(
                sts.at("/spec/serviceName").asText(),
                kinds.get("Service").stream()
                        .filter(s -> s.at("/spec/clusterIP").asText().equals("None"))
                        .findFirst()
                        .orElseThrow()
                        .at("/metadata/name")
                        .asText());

        // Read-only root, non-root user: /tmp and the state directory are writable volumes.
        assertTrue(container.at("/securityContext/readOnlyRootFilesystem").asBoolean());
        assertFalse(container.at("/securityContext/allowPrivilegeEscalation").asBoolean(true));
        assertTrue(pod.at("/securityContext/runAsNonRoot").asBoolean());
        assertNotEquals(0, pod.at("/securityContext/runAsUser").asInt());
        assertEquals("/tmp", mount(container, "tmp").get("mountPath").asText());
        assertTrue(volume(pod, "tmp").has("emptyDir"));
        assertEquals("/var/lib/weir", mount(container, "state").get("mountPath").asText());

        // The grace period covers the graceful drain (20 s) and the stop of its threads.
        assertTrue(pod.get("terminationGracePeriodSeconds").asInt() >= 30, pod::toString);
        assertTrue(container.at("/resources/requests").has("memory"));
        assertEquals("json", env(container, "WEIR_LOG_FORMAT").get("value").asText());
        // The image runs `java $JAVA_OPTS -jar ...`: options given as JAVA_TOOL_OPTIONS would lose to
        // the image's own -XX:MaxRAMPercentage on the command line.
        assertTrue(env(container, "JAVA_OPTS").get("value").asText().contains("MaxRAMPercentage"), container::toString);
        assertTrue(
                container.get("env").findValuesAsText("name").stream().noneMatch("JAVA_TOOL_OPTIONS"::equals),
                container::toString);
        assertEquals(
                1, one(kinds, "PodDisruptionBudget").at("/spec/maxUnavailable").asInt());
    }

    @Test
    void stateIsAnEmptyDirUnlessPersistenceIsOn() throws Exception {
        JsonNode plain = one(render("ci/defaults-values.yaml"), "StatefulSet");
        assertTrue(
                volume(plain.at("/spec/template/spec"), "state").get("emptyDir").isObject());
        assertTrue(plain.at("/spec/volumeClaimTemplates").isMissingNode());

        JsonNode persistent = one(render("ci/persistence-values.yaml"), "StatefulSet");
        assertEquals(3, persistent.at("/spec/replicas").asInt());
        assertTrue(
                persistent.at("/spec/template/spec/volumes").findValues("name").stream()
                        .noneMatch(n -> n.asText().equals("state")),
                persistent::toString);
        JsonNode claim = persistent.at("/spec/volumeClaimTemplates/0");
        assertEquals("state", claim.at("/metadata/name").asText());
        assertEquals("20Gi", claim.at("/spec/resources/requests/storage").asText());
        assertEquals("fast-ssd", claim.at("/spec/storageClassName").asText());
        assertEquals("ReadWriteOnce", claim.at("/spec/accessModes/0").asText());
    }

    @Test
    void monitoringIsOffByDefaultAndScrapesMetricsAndAlertsWhenOn() throws Exception {
        Map<String, List<JsonNode>> defaults = render("ci/defaults-values.yaml");
        assertFalse(defaults.containsKey("ServiceMonitor"));
        assertFalse(defaults.containsKey("PrometheusRule"));

        Map<String, List<JsonNode>> kinds = render("ci/monitoring-values.yaml");
        JsonNode monitor = one(kinds, "ServiceMonitor");
        assertEquals("/metrics", monitor.at("/spec/endpoints/0/path").asText());
        assertEquals("http", monitor.at("/spec/endpoints/0/port").asText());
        assertTrue(monitor.at("/spec/endpoints/0/honorLabels").asBoolean(), "keeps Weir's instance label");
        assertEquals("prometheus", monitor.at("/metadata/labels/release").asText());
        // It selects the one ClusterIP service, not the headless one too (no double scrape).
        List<JsonNode> selected = new ArrayList<>();
        for (JsonNode s : kinds.get("Service")) {
            Map<String, String> labels = YAML.convertValue(s.at("/metadata/labels"), Map.class);
            Map<String, String> wanted = YAML.convertValue(monitor.at("/spec/selector/matchLabels"), Map.class);
            if (labels.entrySet().containsAll(wanted.entrySet())) {
                selected.add(s);
            }
        }
        assertEquals(1, selected.size(), selected::toString);

        Map<String, String> alerts = new HashMap<>();
        for (JsonNode rule : one(kinds, "PrometheusRule").at("/spec/groups/0/rules")) {
            alerts.put(rule.get("alert").asText(), rule.get("expr").asText());
        }
        assertEquals(
                List.of("WeirCheckpointStale", "WeirConsumerLag", "WeirFailovers", "WeirInstanceDown"),
                alerts.keySet().stream().sorted().toList());
        assertTrue(alerts.get("WeirCheckpointStale").contains("weir_checkpoint_last_completed_age_seconds{"));
        assertTrue(
                alerts.get("WeirCheckpointStale")
                        .contains("> 300) and on (namespace, pod) (sum by (namespace, pod) "
                                + "(weir_consumer_lag_records{"),
                alerts::toString);
        assertTrue(alerts.get("WeirFailovers").contains("increase(weir_failovers_total{"));
        assertTrue(alerts.get("WeirConsumerLag").contains("weir_consumer_lag_records{"));
        assertTrue(alerts.get("WeirConsumerLag").contains("service=\"weir-test\""), alerts::toString);
    }

    @Test
    void saslSecretsReachTheJobOnlyThroughTheEnvironment() throws Exception {
        Map<String, List<JsonNode>> kinds = render("ci/sasl-values.yaml");
        JsonNode pod = one(kinds, "StatefulSet").at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");
        JsonNode jaas = env(container, "KAFKA_SASL_JAAS_CONFIG");
        assertEquals(
                "kafka-credentials", jaas.at("/valueFrom/secretKeyRef/name").asText());
        assertEquals("sasl.jaas.config", jaas.at("/valueFrom/secretKeyRef/key").asText());
        assertEquals(
                "kafka-truststore", volume(pod, "tls").at("/secret/secretName").asText());
        assertTrue(mount(container, "tls").get("readOnly").asBoolean());

        String jobText = one(kinds, "ConfigMap").at("/data/job.yaml").asText();
        JsonNode props = YAML.readTree(jobText).at("/kafka/properties");
        assertEquals("${KAFKA_SASL_JAAS_CONFIG}", props.get("sasl.jaas.config").asText());
        assertEquals(
                "${KAFKA_TRUSTSTORE_PASSWORD}",
                props.get("ssl.truststore.password").asText());
        Path job = Files.writeString(temp.resolve("job.yaml"), jobText);
        WeirConfig loaded = new ConfigLoader().load(job, POD_ENV, List.of());
        assertEquals(
                POD_ENV.get("KAFKA_SASL_JAAS_CONFIG"),
                loaded.kafka().properties().get("sasl.jaas.config"));
        // No secret value is in any rendered manifest.
        Helm.Result rendered = Helm.run(CHART, "template", "weir-test", ".", "-f", "ci/sasl-values.yaml");
        assertFalse(rendered.out().contains("password=\""), rendered.out());
    }

    @Test
    void aJobWithoutApplicationOrPipelineIsRefusedAtRender() throws Exception {
        Helm.Result noApp = Helm.run(CHART, "template", "weir-test", ".", "--set", "job.application=");
        assertNotEquals(0, noApp.exitCode(), noApp::describe);
        assertTrue(noApp.err().contains("job.application is required"), noApp::describe);
        Helm.Result noPipeline = Helm.run(CHART, "template", "weir-test", ".", "--set", "job.pipeline=null");
        assertNotEquals(0, noPipeline.exitCode(), noPipeline::describe);
        assertTrue(noPipeline.err().contains("job.pipeline is required"), noPipeline::describe);
    }

    @Test
    void aChangedJobRollsThePods() throws Exception {
        String before = one(render("ci/defaults-values.yaml"), "StatefulSet")
                .at("/spec/template/metadata/annotations/checksum~1job")
                .asText();
        Path changed = Files.writeString(temp.resolve("changed.yaml"), "job:\n  processing:\n    threads: 4\n");
        String after = one(render(changed.toString()), "StatefulSet")
                .at("/spec/template/metadata/annotations/checksum~1job")
                .asText();
        assertFalse(before.isEmpty());
        assertNotEquals(before, after);
    }

    @Test
    void theRescaleJobRunsWeirRescaleWithTheInstancesEnvironmentOnlyWhenNoInstanceRuns() throws Exception {
        assertFalse(render("ci/sasl-values.yaml").containsKey("Job"), "no Job unless rescale.enabled");
        Path rescale = Files.writeString(
                temp.resolve("rescale.yaml"), "replicaCount: 0\nrescale:\n  enabled: true\n  args: [--dry-run]\n");
        Map<String, List<JsonNode>> kinds = render("ci/sasl-values.yaml", rescale.toString());

        JsonNode job = one(kinds, "Job");
        // A hook: each `helm upgrade` deletes the last one and runs it anew (a Job's pod template
        // cannot change), and waits for it.
        assertEquals(
                "post-install,post-upgrade",
                job.at("/metadata/annotations/helm.sh~1hook").asText());
        assertEquals(
                "before-hook-creation",
                job.at("/metadata/annotations/helm.sh~1hook-delete-policy").asText());
        JsonNode pod = job.at("/spec/template/spec");
        JsonNode instancePod = one(kinds, "StatefulSet").at("/spec/template/spec");
        JsonNode container = pod.at("/containers/0");
        List<String> command = new ArrayList<>();
        container.get("command").forEach(c -> command.add(c.asText()));
        container.get("args").forEach(a -> command.add(a.asText()));
        assertEquals(List.of("weir", "rescale", "--config", "/etc/weir/job.yaml", "--dry-run"), command);
        assertEquals("Never", pod.get("restartPolicy").asText());
        // The same job file, secrets and TLS files as the instances: it reaches the same brokers.
        assertEquals(instancePod.at("/containers/0/env"), container.get("env"));
        assertEquals(volume(instancePod, "job"), volume(pod, "job"));
        assertEquals(volume(instancePod, "tls"), volume(pod, "tls"));
        assertEquals(mount(instancePod.at("/containers/0"), "tls"), mount(container, "tls"));
        assertEquals("/var/lib/weir", mount(container, "state").get("mountPath").asText());
        assertEquals(instancePod.at("/containers/0/resources"), container.get("resources"));

        Helm.Result running = Helm.run(
                CHART, "template", "weir-test", ".", "-f", "ci/sasl-values.yaml", "--set", "rescale.enabled=true");
        assertNotEquals(0, running.exitCode(), running::describe);
        assertTrue(running.err().contains("rescale.enabled needs replicaCount: 0"), running::describe);
    }

    /** helm template with a values file; the manifests by kind. */
    private Map<String, List<JsonNode>> render(String... values) throws Exception {
        List<String> args = new ArrayList<>(List.of("template", "weir-test", "."));
        for (String v : values) {
            args.add("-f");
            args.add(v);
        }
        Helm.Result r = Helm.run(CHART, args.toArray(String[]::new));
        assertEquals(0, r.exitCode(), r::describe);
        Map<String, List<JsonNode>> kinds = new HashMap<>();
        try (YAMLParser parser = new YAMLFactory().createParser(r.out())) {
            for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
                if (doc != null && doc.has("kind")) {
                    kinds.computeIfAbsent(doc.get("kind").asText(), k -> new ArrayList<>())
                            .add(doc);
                }
            }
        }
        return kinds;
    }

    private static JsonNode one(Map<String, List<JsonNode>> kinds, String kind) {
        List<JsonNode> all = kinds.get(kind);
        assertNotNull(all, () -> "no " + kind + " rendered, only " + kinds.keySet());
        assertEquals(1, all.size(), () -> kind + ": " + all);
        return all.get(0);
    }

    private static JsonNode named(JsonNode list, String name, String what) {
        for (JsonNode item : list) {
            if (name.equals(item.path("name").asText())) {
                return item;
            }
        }
        throw new AssertionError("no " + what + " " + name + " in " + list);
    }

    private static JsonNode env(JsonNode container, String name) {
        return named(container.get("env"), name, "env");
    }

    private static JsonNode mount(JsonNode container, String name) {
        return named(container.get("volumeMounts"), name, "volume mount");
    }

    private static JsonNode volume(JsonNode pod, String name) {
        return named(pod.get("volumes"), name, "volume");
    }
}
