package io.weir.config;

import java.util.Collection;
import java.util.Optional;

/**
 * Finds the name a user probably meant when they wrote one that is not known, for "did you mean"
 * hints: the closest known name by Levenshtein distance, if it is at most two edits away.
 */
final class Spelling {

    static final int MAX_DISTANCE = 2;

    private Spelling() {}

    static Optional<String> closest(String written, Collection<String> known) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        for (String candidate : known) {
            int distance = distance(written, candidate);
            if (distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return Optional.ofNullable(best);
    }

    /** {@code "; did you mean X?"} when a close known name exists, else an empty string. */
    static String hint(String written, Collection<String> known) {
        return closest(written, known)
                .map(name -> "; did you mean " + name + "?")
                .orElse("");
    }

    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
