package io.weir.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The HTTP endpoint of an instance (the JDK's server): {@code /metrics} (Prometheus text), {@code
 * /health/live}, {@code /health/ready} and {@code /checkpoints} (JSON).
 *
 * <p>The JDK's server reads a request's headers on the executor's thread: a client that stalls in
 * the middle of its request holds a thread. So a few threads serve, and a request not read within
 * {@link #MAX_REQUEST_SECONDS} has its connection closed, so that a slow or stuck client (a scanner,
 * a half-open connection) cannot keep the probes from answering and get a healthy pod restarted.
 */
public final class OpsServer implements AutoCloseable {
    /** Threads serving requests: probes and scrapes still answer while a few clients stall. */
    private static final int THREADS = 4;
    /** How long the server waits for a request's line and headers before it closes the connection. */
    static final int MAX_REQUEST_SECONDS = 10;

    static {
        // Read once, when the JDK's server classes first load (the first server of the process);
        // an operator's own -Dsun.net.httpserver.maxReqTime wins.
        if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
            System.setProperty("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_SECONDS));
        }
    }

    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON = "application/json";

    /** What one GET answers. */
    record Response(int status, String contentType, String body) {}

    private final HttpServer server;
    private final ExecutorService executor;

    /** Binds {@code port} (0: any free port) on all interfaces and starts serving. */
    public OpsServer(
            int port, WeirMetrics metrics, Supplier<Boolean> live, Readiness readiness, CheckpointHistory history)
            throws IOException {
        server = HttpServer.create(new InetSocketAddress(port), 0);
        AtomicInteger threads = new AtomicInteger();
        executor = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "weir-http-" + threads.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        route("/metrics", () -> new Response(200, PROMETHEUS_TEXT, metrics.scrape()));
        route(
                "/health/live",
                () -> live.get()
                        ? new Response(200, JSON, "{\"status\":\"live\"}")
                        : new Response(503, JSON, "{\"status\":\"stopped\"}"));
        route("/health/ready", () -> readiness
                .notReadyReason()
                .map(reason -> new Response(503, JSON, notReady(reason)))
                .orElseGet(() -> new Response(200, JSON, "{\"status\":\"ready\"}")));
        route("/checkpoints", () -> new Response(200, JSON, history.json()));
        server.start();
    }

    private static String notReady(String reason) {
        var node = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
        node.put("status", "not-ready");
        node.put("reason", reason);
        return node.toString();
    }

    /** The port it listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    private void route(String path, Supplier<Response> handler) {
        server.createContext(path, exchange -> {
            try (exchange) {
                if (!exchange.getRequestURI().getPath().equals(path)) {
                    send(exchange, new Response(404, JSON, "{\"error\":\"not found\"}"));
                } else if (!exchange.getRequestMethod().equals("GET")
                        && !exchange.getRequestMethod().equals("HEAD")) {
                    exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                    send(exchange, new Response(405, JSON, "{\"error\":\"method not allowed\"}"));
                } else {
                    Response r;
                    try {
                        r = handler.get();
                    } catch (RuntimeException e) {
                        r = new Response(500, "text/plain; charset=utf-8", e.toString());
                    }
                    send(exchange, r);
                }
            }
        });
    }

    private static void send(HttpExchange exchange, Response r) throws IOException {
        byte[] body = r.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", r.contentType());
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(r.status(), head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
