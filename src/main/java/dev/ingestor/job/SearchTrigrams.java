package dev.ingestor.job;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which part of a search by part of a file name the trigram index is asked for. GIN checks every candidate of a
 * search's rarest trigram in the list of each of its other trigrams, and a trigram nearly every name holds (those of
 * {@code .csv}, of a fixed prefix) has a list as long as the table: asked for {@code %4242.csv%} among 5,000,000 names
 * the index read 4,088 pages in 137 ms, asked for {@code %4242.%} 28 pages in 4 ms. So the index is asked for the
 * pieces of the search that hold none of the trigrams frequent in the names and that no sampled name holds (the
 * column's statistics: ANALYZE's sample), and the whole search is checked on the rows it finds. The trigrams are
 * made as pg_trgm makes them for ASCII (lower case; words of letters and digits; a word padded with two spaces
 * before and one after, but not on a side where a LIKE pattern's wildcard touches it); a search beyond ASCII is asked
 * for whole, and a piece always ends in a whole-search check, so a piece never changes the answer.
 */
final class SearchTrigrams {

    /** A trigram held by at least this share of the sampled names is frequent. */
    static final double FREQUENT_SHARE = 0.5;
    /** Longer searches are asked for whole: finding the pieces costs the search's length cubed. */
    static final int MAX_SEARCH = 64;
    /** Fewer sampled names than this say nothing about frequency. */
    static final int MIN_SAMPLE = 20;

    private SearchTrigrams() {
    }

    /** The trigrams held by at least {@link #FREQUENT_SHARE} of {@code names}; none under {@link #MIN_SAMPLE}. */
    static Set<String> frequentIn(Collection<String> names) {
        if (names.size() < MIN_SAMPLE) {
            return Set.of();
        }
        Map<String, Integer> holders = new HashMap<>();
        for (String name : names) {
            for (String trigram : ofName(name)) {
                holders.merge(trigram, 1, Integer::sum);
            }
        }
        Set<String> frequent = new LinkedHashSet<>();
        holders.forEach((trigram, count) -> {
            if (count >= FREQUENT_SHARE * names.size()) {
                frequent.add(trigram);
            }
        });
        return frequent;
    }

    /** The trigrams of a stored name: every word padded on both sides. */
    static Set<String> ofName(String name) {
        return trigrams(name, true, true);
    }

    /** The trigrams of a pattern {@code %part%}: its first and last word unpadded where they touch a wildcard. */
    static Set<String> ofPart(String part) {
        return trigrams(part, false, false);
    }

    /**
     * The parts of {@code search} to ask the index for, each a piece of it whose trigrams include none of the
     * {@code frequent} ones (and at least one) and that no name of the {@code sample} holds, so that its matches
     * are few: the longest such piece, then the longest ones in what is left on either side of it, and so on; the
     * index is asked for all of them at once. Empty, and the whole search asked for, when: the whole search holds no
     * frequent trigram; a sampled name holds the whole search (its matches may be many, and the planner reads those
     * in list order); no piece qualifies; or the search is longer than {@link #MAX_SEARCH}, holds LIKE's own
     * characters or anything but ASCII (where PostgreSQL's words and lower case may differ from these).
     */
    static List<String> indexedParts(String search, Collection<String> sample, Set<String> frequent) {
        if (frequent.isEmpty() || search.length() > MAX_SEARCH || !plainAscii(search)
                || ofPart(search).stream().noneMatch(frequent::contains)) {
            return List.of();
        }
        List<String> lowerSample = sample.stream().map(name -> name.toLowerCase(Locale.ROOT)).toList();
        if (heldBy(search, lowerSample)) {
            return List.of();
        }
        List<String> parts = new ArrayList<>();
        collect(search, lowerSample, frequent, parts);
        return parts;
    }

    /** Adds the pieces of {@code text}; {@code lowerSample} is the sample in lower case. */
    private static void collect(String text, List<String> lowerSample, Set<String> frequent, List<String> parts) {
        for (int length = text.length(); length >= 3; length--) {
            for (int start = 0; start + length <= text.length(); start++) {
                String part = text.substring(start, start + length);
                Set<String> trigrams = ofPart(part);
                if (!trigrams.isEmpty() && trigrams.stream().noneMatch(frequent::contains)
                        && !heldBy(part, lowerSample)) {
                    parts.add(part);
                    collect(text.substring(0, start), lowerSample, frequent, parts);
                    collect(text.substring(start + length), lowerSample, frequent, parts);
                    return;
                }
            }
        }
    }

    /** Printable ASCII without LIKE's {@code %}, {@code _} and escape {@code \}. */
    private static boolean plainAscii(String text) {
        return text.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '%' && c != '_' && c != '\\');
    }

    /** Whether a name of {@code lowerSample} (in lower case) holds {@code part}, whatever its case. */
    private static boolean heldBy(String part, List<String> lowerSample) {
        String lower = part.toLowerCase(Locale.ROOT);
        return lowerSample.stream().anyMatch(name -> name.contains(lower));
    }

    private static Set<String> trigrams(String text, boolean padStart, boolean padEnd) {
        String lower = text.toLowerCase(Locale.ROOT);
        Set<String> trigrams = new LinkedHashSet<>();
        int i = 0;
        while (i < lower.length()) {
            int start = i;
            while (i < lower.length() && Character.isLetterOrDigit(lower.charAt(i))) {
                i++;
            }
            if (i > start) {
                boolean first = start == 0;
                boolean last = i == lower.length();
                String word = (first && !padStart ? "" : "  ") + lower.substring(start, i)
                        + (last && !padEnd ? "" : " ");
                for (int t = 0; t + 3 <= word.length(); t++) {
                    trigrams.add(word.substring(t, t + 3));
                }
            }
            i++;
        }
        return trigrams;
    }
}
