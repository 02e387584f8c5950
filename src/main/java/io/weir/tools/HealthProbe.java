package io.weir.tools;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The container's health check: {@code java -cp weir.jar io.weir.tools.HealthProbe URL} exits 0
 * when a GET of URL answers 2xx, 1 otherwise. The JRE run image has no curl; this needs nothing
 * but the JDK's HTTP client.
 */
public final class HealthProbe {
    private HealthProbe() {}

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: HealthProbe URL");
            System.exit(2);
        }
        System.exit(probe(URI.create(args[0]), Duration.ofSeconds(3)) ? 0 : 1);
    }

    static boolean probe(URI uri, Duration timeout) {
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(uri).timeout(timeout).GET().build(), HttpResponse.BodyHandlers.ofString());
            boolean ok = response.statusCode() / 100 == 2;
            if (!ok) {
                System.err.println(uri + ": HTTP " + response.statusCode() + " " + response.body());
            }
            return ok;
        } catch (Exception e) {
            System.err.println(uri + ": " + e);
            return false;
        }
    }
}
