package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The part of a search the trigram index is asked for: the pieces of it without a trigram most names hold, so that
 * no candidate is looked up in a list as long as the table.
 */
class SearchTrigramsTest {

    /** Names as a busy supplier sends them: a fixed word, a date of this year, a running number, the extension. */
    private static List<String> names() {
        List<String> names = new ArrayList<>();
        for (int n = 0; n < 101; n++) {
            names.add("delivery-2026" + String.format("%02d%02d", 1 + n % 12, 1 + n % 28) + "-" + (1000 + n * 4937)
                    + ".csv");
        }
        return names;
    }

    @Test
    void trigramsAreMadeAsPgTrgmMakesThemForANameAndForAPattern() {
        assertThat(SearchTrigrams.ofName("A-42.csv")).containsExactlyInAnyOrder("  a", " a ", "  4", " 42", "42 ",
                "  c", " cs", "csv", "sv ");
        // in %4242.cs% the first word touches the wildcard before it, the last the one after it
        assertThat(SearchTrigrams.ofPart("4242.cs")).containsExactlyInAnyOrder("424", "242", "42 ", "  c", " cs");
        assertThat(SearchTrigrams.ofPart("42")).isEmpty();
    }

    @Test
    void theIndexIsAskedForThePiecesWithoutAFrequentTrigramThatNoSampledNameHolds() {
        List<String> names = names();
        Set<String> frequent = SearchTrigrams.frequentIn(names);
        assertThat(frequent).contains("csv", " cs", "del", "202", "026").doesNotContain("424", "242");

        assertThat(SearchTrigrams.indexedParts("4242.csv", names, frequent)).containsExactly("4242.");
        // every piece without a frequent trigram, the longest first: the index is asked for all of them at once
        assertThat(SearchTrigrams.indexedParts("delivery-20260307-4242.CSV", names, frequent))
                .isNotEmpty()
                .allSatisfy(part -> assertThat(SearchTrigrams.ofPart(part)).isNotEmpty()
                        .doesNotContainAnyElementsOf(frequent))
                .allSatisfy(part -> assertThat(names).noneMatch(name -> name.contains(part.toLowerCase())))
                .anyMatch(part -> part.contains("4242."));
        // nothing frequent in it: the whole search
        assertThat(SearchTrigrams.indexedParts("4242", names, frequent)).isEmpty();
        // nothing but frequent trigrams, or LIKE's own characters: the whole search too
        assertThat(SearchTrigrams.indexedParts("delivery.csv", names, frequent)).isEmpty();
        assertThat(SearchTrigrams.indexedParts("4242_.csv", names, frequent)).isEmpty();
    }

    @Test
    void aSearchSampledNamesHoldOrThatIsNotPlainAsciiOrLongIsAskedForWhole() {
        List<String> names = names();
        Set<String> frequent = SearchTrigrams.frequentIn(names);
        // a sampled name holds it: its matches may be many, and the planner may read them in list order
        String held = names.get(7).substring(names.get(7).length() - 8).toUpperCase();
        assertThat(SearchTrigrams.indexedParts(held, names, frequent)).isEmpty();
        // PostgreSQL's words and lower case may differ from Java's beyond ASCII
        assertThat(SearchTrigrams.indexedParts("4242-Счёт.csv", names, frequent)).isEmpty();
        assertThat(SearchTrigrams.indexedParts("4242-" + "x".repeat(SearchTrigrams.MAX_SEARCH) + ".csv", names,
                frequent)).isEmpty();
    }

    @Test
    void aSampleTooSmallSaysNothingIsFrequent() {
        assertThat(SearchTrigrams.frequentIn(names().subList(0, SearchTrigrams.MIN_SAMPLE - 1))).isEmpty();
        assertThat(SearchTrigrams.indexedParts("4242.csv", names(), Set.of())).isEmpty();
    }
}
