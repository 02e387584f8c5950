package io.weir.tools;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class HealthProbeTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @Test
    void healthyOnlyOn2xx() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/health/live", e -> {
            e.sendResponseHeaders(200, -1);
            e.close();
        });
        server.createContext("/health/ready", e -> {
            byte[] body = "{\"status\":\"restoring\"}".getBytes();
            e.sendResponseHeaders(503, body.length);
            e.getResponseBody().write(body);
            e.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            assertTrue(HealthProbe.probe(URI.create(base + "/health/live"), TIMEOUT));
            assertFalse(HealthProbe.probe(URI.create(base + "/health/ready"), TIMEOUT));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void unhealthyWhenNothingListens() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertFalse(HealthProbe.probe(URI.create("http://127.0.0.1:" + port + "/health/live"), TIMEOUT));
    }
}
