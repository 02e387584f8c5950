package io.weir.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weir.app.Jobs;
import io.weir.config.WeirConfig;
import io.weir.kafka.KafkaClients;
import io.weir.kafka.OpenTransactions;
import io.weir.kafka.Topics;
import io.weir.logging.Secrets;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code weir txn list|abort}: the job's open Kafka transactions, with owner (the instance-id in
 * the transactional id), whether the owner is a member of the group, age and partitions; and
 * aborting those of instances that left the group (or of one named instance), which frees the
 * last stable offset they hold back. A live member's transaction is only aborted with
 * {@code --force}: that fences the member's producer and makes it fail over.
 */
@Command(
        name = "txn",
        mixinStandardHelpOptions = true,
        description = "List the job's open Kafka transactions, or abort those of departed instances.")
public final class TxnCommand implements Callable<Integer> {
    /** Exit code when a transaction was left open: a live owner without --force, or a failed abort. */
    static final int LEFT_OPEN = 1;

    @Parameters(index = "0", description = "list | abort")
    String action;

    @Mixin
    JobConfigOptions job;

    @Option(
            names = "--instance",
            description = "abort: only the transactions of this instance-id (default: of every instance that is "
                    + "no member of the consumer group).")
    String instance;

    @Option(names = "--force", description = "abort: also abort transactions of live group members.")
    boolean force;

    @Option(names = "--json", description = "Print JSON (one object) instead of a table.")
    boolean json;

    @Spec
    CommandSpec spec;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!action.equals("list") && !action.equals("abort")) {
            err.println("unknown action '" + action + "', expected list or abort");
            err.flush();
            return 2;
        }
        WeirConfig loaded = job.loadOrReport();
        if (loaded == null) {
            return JobConfigOptions.INVALID;
        }
        KafkaClients clients = Jobs.clients(loaded);
        List<OpenTransactions.Open> open;
        try (Admin admin = clients.admin("weir-txn")) {
            open = new OpenTransactions(admin, loaded.application()).list();
        } catch (ExecutionException | TimeoutException | Topics.StartupException e) {
            err.println("weir txn: cannot list transactions: " + whyNot(e, loaded));
            err.flush();
            return LEFT_OPEN;
        }
        long now = System.currentTimeMillis();
        int code = action.equals("list") ? list(out, loaded, open, now) : abort(out, loaded, clients, open, now);
        out.flush();
        return code;
    }

    /** Why the list failed: no admin client (a bootstrap name that does not resolve), no answer in time, or the broker's error. */
    private static String whyNot(Exception e, WeirConfig config) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        if (cause instanceof TimeoutException || cause instanceof org.apache.kafka.common.errors.TimeoutException) {
            return "no answer from Kafka at " + config.kafka().bootstrap() + " in time";
        }
        return Secrets.redact(cause instanceof Topics.StartupException ? cause.getMessage() : String.valueOf(cause));
    }

    private int list(PrintWriter out, WeirConfig config, List<OpenTransactions.Open> open, long now) {
        if (json) {
            ObjectNode root = JSON.createObjectNode().put("application", config.application());
            ArrayNode list = root.putArray("transactions");
            open.forEach(o -> list.add(toJson(o, now)));
            out.println(root);
            return 0;
        }
        if (open.isEmpty()) {
            out.println("no open transactions of " + config.application());
            return 0;
        }
        out.printf(
                "%-40s %-24s %-7s %-14s %9s  %-24s %s%n",
                "transactional id", "owner", "member", "state", "age", "started", "partitions");
        for (OpenTransactions.Open o : open) {
            out.printf(
                    "%-40s %-24s %-7s %-14s %9s  %-24s %s%n",
                    o.transactionalId(),
                    o.owner(),
                    o.ownerIsMember() ? "yes" : "no",
                    o.state(),
                    age(o.ageMs(now)),
                    o.startMs().isPresent() ? Instant.ofEpochMilli(o.startMs().getAsLong()) : "-",
                    String.join(",", o.partitions()));
        }
        return 0;
    }

    private int abort(
            PrintWriter out, WeirConfig config, KafkaClients clients, List<OpenTransactions.Open> open, long now) {
        List<OpenTransactions.Open> aborted = new ArrayList<>();
        List<String[]> leftOpen = new ArrayList<>(); // transactional id, reason
        long timeoutMs = config.processing().transactionTimeout().toMillis();
        for (OpenTransactions.Open o : open) {
            if (instance != null && !instance.equals(o.owner())) {
                continue;
            }
            if (o.ownerIsMember() && !force) {
                leftOpen.add(new String[] {
                    o.transactionalId(),
                    "instance " + o.owner() + " is a member of group " + config.application()
                            + " (aborting fences it; use --force)"
                });
                continue;
            }
            try {
                OpenTransactions.abort(clients, o.transactionalId(), timeoutMs);
                aborted.add(o);
            } catch (RuntimeException e) {
                leftOpen.add(new String[] {o.transactionalId(), "abort failed: " + e});
            }
        }
        if (json) {
            ObjectNode root = JSON.createObjectNode().put("application", config.application());
            ArrayNode a = root.putArray("aborted");
            aborted.forEach(o -> a.add(toJson(o, now)));
            ArrayNode l = root.putArray("leftOpen");
            leftOpen.forEach(r -> l.addObject().put("transactionalId", r[0]).put("reason", r[1]));
            out.println(root);
        } else {
            for (OpenTransactions.Open o : aborted) {
                out.printf(
                        "aborted %s (owner %s, open for %s, %s)%n",
                        o.transactionalId(), o.owner(), age(o.ageMs(now)), String.join(",", o.partitions()));
            }
            for (String[] r : leftOpen) {
                out.printf("left open %s: %s%n", r[0], r[1]);
            }
            if (aborted.isEmpty() && leftOpen.isEmpty()) {
                out.println("nothing to abort" + (instance == null ? "" : " for instance " + instance));
            }
        }
        return leftOpen.isEmpty() ? 0 : LEFT_OPEN;
    }

    private static ObjectNode toJson(OpenTransactions.Open o, long now) {
        ObjectNode n = JSON.createObjectNode()
                .put("transactionalId", o.transactionalId())
                .put("owner", o.owner())
                .put("ownerIsMember", o.ownerIsMember())
                .put("state", o.state());
        if (o.startMs().isPresent()) {
            n.put("startTimeMs", o.startMs().getAsLong()).put("ageMs", o.ageMs(now));
        } else {
            n.putNull("startTimeMs").putNull("ageMs");
        }
        n.put("timeoutMs", o.timeoutMs()).put("producerId", o.producerId()).put("producerEpoch", o.producerEpoch());
        ArrayNode p = n.putArray("partitions");
        o.partitions().forEach(p::add);
        return n;
    }

    private static String age(long ms) {
        if (ms < 0) {
            return "-";
        }
        long s = ms / 1000;
        return s < 120
                ? s + "s"
                : s < 7200 ? (s / 60) + "m" + (s % 60) + "s" : (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
