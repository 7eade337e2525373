package dev.ingestor.operations;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin page in a real browser (Debian's chromium, driven through chromedriver by Selenium): failed jobs
 * with their errors and the actions that fix them (each confirmed first), the throughput chart, search and
 * paging, dead letters, intake failures, request keys, and hostile names shown as text. Screenshots go to
 * target/. Without chromium the test is skipped, unless INGESTOR_REQUIRE_BROWSER is set (as .ci/run does).
 */
// slow tier: a real browser (chromium)
@SlowTest
class AdminPageBrowserTest extends IngestorTestSupport {

    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    private WebDriver browser;

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
        jdbc.execute("DROP TRIGGER IF EXISTS page_fault ON item");
        jdbc.execute("DROP FUNCTION IF EXISTS page_fault()");
    }

    private WebDriver browser() {
        boolean installed = Files.isExecutable(CHROMEDRIVER) && Files.isExecutable(CHROMIUM);
        if (System.getenv("INGESTOR_REQUIRE_BROWSER") != null) {
            assertThat(installed).as("chromium and chromedriver (apt-get install chromium chromium-driver)").isTrue();
        }
        Assumptions.assumeTrue(installed, "chromium and chromium-driver are not installed");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .build();
        browser = new ChromeDriver(service, options);
        return browser;
    }

    private void screenshot(String name) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path target = Path.of(System.getProperty("basedir", ".")).resolve("target").resolve(name);
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private String state(UUID id) {
        return jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id);
    }

    private UUID ingest(String fileName, String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, fileName, IntakeHeaders.SOURCE, "test"),
                IntakeResult.class).job().id();
    }

    private void breakProcessing() {
        jdbc.execute(
                """
                        CREATE OR REPLACE FUNCTION page_fault() RETURNS trigger AS $$
                        BEGIN RAISE EXCEPTION 'item table misconfigured (injected)' USING ERRCODE = '23514'; END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER page_fault BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION page_fault()");
    }

    private WebDriverWait open(WebDriver page) {
        page.get("http://127.0.0.1:" + port + "/admin");
        page.findElement(By.id("key")).sendKeys(ADMIN_KEY);
        page.findElement(By.cssSelector("#login button[type=submit]")).click();
        WebDriverWait wait = (WebDriverWait) new WebDriverWait(page, Duration.ofSeconds(20))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class);
        // with the key in place the page answers: no request for a key, no error in the status line
        wait.until(d -> !d.findElement(By.id("updated")).getText().isEmpty());
        wait.until(d -> status(d).isEmpty());
        return wait;
    }

    private static void tab(WebDriver page, String name) {
        page.findElement(By.cssSelector(".tabs button[data-tab='" + name + "']")).click();
    }

    /**
     * Clicks a button inside a row the live refresh may redraw at any moment (so it is found again right
     * before the click), then answers the confirmation every action asks for.
     */
    private static void clickAndConfirm(WebDriverWait wait, By row, String button) {
        wait.until(d -> {
            d.findElement(row).findElement(By.cssSelector(button)).click();
            return true;
        });
        wait.until(ExpectedConditions.alertIsPresent()).accept();
    }

    /** A click on an element the live refresh may redraw at any moment: found again right before the click. */
    private static void click(WebDriverWait wait, By what) {
        wait.until(d -> {
            d.findElement(what).click();
            return true;
        });
    }

    private static String status(WebDriver page) {
        return page.findElement(By.id("status")).getText();
    }

    @Test
    void thePageShowsAFailedJobAndReValidateBringsItToCompleted() throws Exception {
        WebDriver page = browser();
        breakProcessing();
        UUID id = ingest("page.csv", "source_id,sku,quantity,delivery_date\nP-1,SKU,1,2026-12-01\n");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("FAILED"));

        WebDriverWait wait = open(page);
        wait.until(d -> d.findElement(By.cssSelector("#tile-FAILED .count")).getText().equals("1"));
        tab(page, "failed");
        By failedRow = By.cssSelector("#failed tbody tr[data-job='" + id + "']");
        WebElement row = wait.until(d -> d.findElements(failedRow).stream().findFirst().orElse(null));
        assertThat(row.getText()).contains("page.csv").contains("processing").contains("item table misconfigured");
        screenshot("admin-page-failed-job.png");

        // the cause is fixed; the operator re-validates from the page, and says yes when asked
        jdbc.execute("DROP TRIGGER page_fault ON item");
        clickAndConfirm(wait, failedRow, "button.revalidate");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED"));
        wait.until(d -> status(d).contains("queued for validation"));
        tab(page, "jobs");
        By jobRow = By.cssSelector("#jobs tbody tr[data-job='" + id + "']");
        wait.until(d -> d.findElements(jobRow).stream().anyMatch(r -> r.getText().contains("COMPLETED")));
        tab(page, "failed");
        wait.until(d -> d.findElements(failedRow).isEmpty());
        screenshot("admin-page-after-revalidate.png");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(1);
    }

    @Test
    void anActionIsTakenOnlyWhenConfirmed() throws Exception {
        WebDriver page = browser();
        breakProcessing();
        UUID id = ingest("refused.csv", "source_id,sku,quantity,delivery_date\nR-1,SKU,1,2026-12-01\n");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("FAILED"));
        jdbc.execute("DROP TRIGGER page_fault ON item");

        WebDriverWait wait = open(page);
        tab(page, "failed");
        By failedRow = By.cssSelector("#failed tbody tr[data-job='" + id + "']");
        wait.until(d -> {
            d.findElement(failedRow).findElement(By.cssSelector("button.reprocess")).click();
            return true;
        });
        wait.until(ExpectedConditions.alertIsPresent()).dismiss();
        wait.until(d -> status(d).startsWith("cancelled"));
        // on purpose: a request the dismissed dialog let through would have changed the job by now
        Thread.sleep(1000);
        assertThat(state(id)).isEqualTo("FAILED");

        // confirmed, "retry all failed" of the supplier sends the job back
        By retryAll = By.cssSelector("#retry-suppliers button.retry-supplier[data-supplier='ACME']");
        wait.until(d -> d.findElement(retryAll).getText().equals("Retry all 1 failed of ACME"));
        click(wait, retryAll);
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> status(d).contains("1 job(s) sent back"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED"));
        wait.until(d -> d.findElements(retryAll).isEmpty());
    }

    /**
     * The page's own fetch, wrapped in the browser: answers to requests whose address holds a key of
     * {@code window.slow} wait that many milliseconds (abortable, as a network's wait is), and the requests in
     * flight at once are counted. The page's code is as served.
     */
    private static final String SLOW_SERVER = """
            window.slow = {}; window.inFlight = 0; window.maxInFlight = 0;
            const original = window.fetch;
            window.fetch = async (url, init) => {
              window.inFlight++; window.maxInFlight = Math.max(window.maxInFlight, window.inFlight);
              try {
                const wait = Object.entries(window.slow).find(([part]) => String(url).includes(part));
                if (wait) {
                  await new Promise((resolve, reject) => {
                    const t = setTimeout(resolve, wait[1]);
                    if (init && init.signal) {
                      init.signal.addEventListener('abort', () => {
                        clearTimeout(t); reject(new DOMException('aborted', 'AbortError'));
                      });
                    }
                  });
                }
                return await original(url, init);
              } finally { window.inFlight--; }
            };""";

    /**
     * A slow server gets one refresh at a time, a server that does not answer is named within 10 s, and the job
     * view acts on the job it shows: a slow answer about a job clicked earlier is not drawn over a later one's.
     */
    @Test
    void aSlowServerGetsOneRequestAtATimeAndTheJobViewActsOnTheJobShown() throws Exception {
        WebDriver page = browser();
        UUID first = ingest("first.csv", "source_id,sku,quantity,delivery_date\nS-1,SKU,1,2026-12-01\n");
        UUID second = ingest("second.csv", "source_id,sku,quantity,delivery_date\nS-2,SKU,1,2026-12-01\n");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> state(first).equals("COMPLETED") && state(second).equals("COMPLETED"));
        WebDriverWait wait = open(page);
        org.openqa.selenium.JavascriptExecutor js = (org.openqa.selenium.JavascriptExecutor) page;
        js.executeScript(SLOW_SERVER);

        // each refresh waits 7 s for the overview, more than the 3 s between refreshes
        js.executeScript("window.slow = {'/admin/overview': 7000};");
        Thread.sleep(16_000);
        assertThat(((Number) js.executeScript("return window.maxInFlight;")).intValue()).isEqualTo(1);

        // no answer at all: said within the 10 s a request is given
        js.executeScript("window.slow = {'/admin/overview': 600000};");
        new WebDriverWait(page, Duration.ofSeconds(25))
                .until(d -> status(d).equals("error: no answer within 10 s"));

        // the first job's answer is slow; the operator clicks it, then the second, which is drawn and stays (live
        // refresh off: it would draw the second again, over whatever drew the first)
        js.executeScript("window.slow = {'/admin/jobs/" + first + "': 3000};");
        wait.until(d -> status(d).isEmpty());
        page.findElement(By.id("live")).click();
        By firstRow = By.cssSelector("#jobs tbody tr[data-job='" + first + "']");
        By secondRow = By.cssSelector("#jobs tbody tr[data-job='" + second + "']");
        click(wait, firstRow);
        click(wait, secondRow);
        wait.until(d -> d.findElement(By.id("detail-id")).getText().equals(second.toString()));
        Thread.sleep(4_000);
        assertThat(page.findElement(By.id("detail-id")).getText()).isEqualTo(second.toString());
        assertThat(page.findElement(By.id("detail-fields")).getText()).contains("second.csv");

        click(wait, By.id("reprocess"));
        org.openqa.selenium.Alert question = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(question.getText()).contains(second.toString()).contains("second.csv").contains("COMPLETED");
        question.accept();
        wait.until(d -> status(d).contains("queued for processing"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT replayed FROM import_job WHERE id = ?", Long.class, second) == 1);
        assertThat(jdbc.queryForObject("SELECT replayed FROM import_job WHERE id = ?", Long.class, first)).isZero();
    }

    @Test
    void throughputSearchAndPagingShowTheJobs() throws Exception {
        WebDriver page = browser();
        int jobs = 27;
        for (int i = 0; i < jobs; i++) {
            ingest("batch-" + i + ".csv", "source_id,sku,quantity,delivery_date\nB-" + i + ",SKU,1,2026-12-01\n");
        }
        // one record of the wanted job is quarantined
        UUID wanted = ingest("needle 7%_x.csv",
                "source_id,sku,quantity,delivery_date\nN-1,SKU,1,2026-12-01\nN-2,SKU,-3,2026-12-01\n");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS')",
                Long.class) == jobs + 1);

        WebDriverWait wait = open(page);
        // the chart has bars for the jobs finished in the last minutes, and the legend counts them
        wait.until(d -> !d.findElements(By.cssSelector("#chart-jobs rect.bar")).isEmpty());
        wait.until(d -> d.findElement(By.cssSelector("#legend-jobs [data-series='completed']")).getText()
                .equals("completed " + jobs));
        wait.until(d -> d.findElement(By.cssSelector("#legend-jobs [data-series='completedWithErrors']")).getText()
                .equals("completed with errors 1"));
        wait.until(d -> d.findElement(By.cssSelector("#legend-records [data-series='quarantined']")).getText()
                .equals("quarantined 1"));
        wait.until(d -> d.findElement(By.cssSelector("#legend-records [data-series='accepted']")).getText()
                .equals("accepted " + (jobs + 1)));
        assertThat(page.findElements(By.cssSelector("#chart-records rect.bar"))).isNotEmpty();
        screenshot("admin-page-throughput.png");

        // 28 jobs, 25 a page: page 2 (by cursor) has the 3 oldest, and live refresh keeps the operator on page 2
        wait.until(d -> d.findElement(By.cssSelector("#jobs-pager .where")).getText().equals("page 1 · more follow"));
        click(wait, By.cssSelector("#jobs-pager button.next"));
        wait.until(d -> d.findElement(By.cssSelector("#jobs-pager .where")).getText().equals("page 2 · last page"));
        wait.until(d -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 3);
        String updated = page.findElement(By.id("updated")).getText();
        wait.until(d -> !d.findElement(By.id("updated")).getText().equals(updated));
        wait.until(d -> d.findElement(By.cssSelector("#jobs-pager .where")).getText().equals("page 2 · last page"));
        wait.until(d -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 3);
        assertThat(page.findElement(By.id("jobs")).getText()).contains("batch-0.csv");

        // search by part of the file name, % and _ as typed
        page.findElement(By.id("search")).sendKeys("7%_X");
        page.findElement(By.cssSelector("#filter button[type=submit]")).click();
        wait.until(d -> d.findElement(By.cssSelector("#jobs-pager .where")).getText().equals("page 1 · last page"));
        wait.until(d -> d.findElements(By.cssSelector("#jobs tbody tr")).size() == 1);
        wait.until(d -> wanted.toString()
                .equals(d.findElement(By.cssSelector("#jobs tbody tr")).getAttribute("data-job")));

        // a click opens the readable job view
        click(wait, By.cssSelector("#jobs tbody tr"));
        wait.until(d -> d.findElement(By.id("detail-fields")).getText().contains("needle 7%_x.csv"));
        assertThat(page.findElement(By.id("detail-progress")).getText()).isEqualTo("2 of 2 records processed");
        assertThat(page.findElement(By.id("detail-fields")).getText()).contains("COMPLETED_WITH_ERRORS")
                .contains("accepted 1").contains("quarantined 1");
        wait.until(d -> d.findElement(By.id("detail-records")).getText().contains("N-2"));
        assertThat(page.findElement(By.id("detail-records")).getText()).contains("quantity");
        assertThat(page.findElement(By.id("detail-bar")).getAttribute("style")).contains("width: 100%");
        screenshot("admin-page-search-and-job.png");
    }

    @Test
    void deadLetterReplayIntakeRetryAndKeyReleaseFromThePage() throws Exception {
        WebDriver page = browser();
        breakProcessing();
        UUID failed = ingest("letter.csv", "source_id,sku,quantity,delivery_date\nL-1,SKU,1,2026-12-01\n");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(failed).equals("FAILED"));
        jdbc.execute("DROP TRIGGER page_fault ON item");
        long letter = jdbc.queryForObject("SELECT id FROM dead_letter WHERE job_id = ?", Long.class, failed);
        // a dropped file that failed at intake lies in .failed/
        Path failedFolder = INBOX.resolve("ACME/.failed");
        Files.createDirectories(failedFolder);
        Path dropped = failedFolder.resolve("again.csv");
        Files.writeString(dropped, "source_id,sku,quantity,delivery_date\nA-1,SKU,1,2026-12-01\n");
        long intakeFailure = jdbc.queryForObject(
                "INSERT INTO intake_failure (supplier, source, file_name, size, outcome,"
                        + " reason, location) VALUES ('ACME', 'file-drop', 'again.csv', 10, 'failed', 'database away', ?) RETURNING id",
                Long.class, dropped.toAbsolutePath().toString());
        jdbc.update(
                "INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until, expires_at)"
                        + " VALUES ('ACME', 'stuck/page', repeat('a', 64), 'IN_PROGRESS', 'gone/1', now() + interval '1 hour', now() + interval '1 day')");

        WebDriverWait wait = open(page);
        wait.until(d -> d.findElement(By.cssSelector("#tile-dead .count")).getText().equals("1"));
        wait.until(d -> d.findElement(By.cssSelector("#tile-intake .count")).getText().equals("1"));

        tab(page, "dead");
        By letterRow = By.cssSelector("#dead tbody tr[data-letter='" + letter + "']");
        wait.until(d -> d.findElement(letterRow).getText().contains("item table misconfigured"));
        screenshot("admin-page-dead-letters.png");
        clickAndConfirm(wait, letterRow, "button.replay");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT replayed_at IS NOT NULL FROM dead_letter WHERE id = ?", Boolean.class, letter));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(failed).equals("COMPLETED"));
        wait.until(d -> d.findElement(letterRow).getText().contains("by admin"));
        assertThat(page.findElements(By.cssSelector("#dead tbody tr[data-letter='" + letter + "'] button.replay")))
                .isEmpty();

        tab(page, "intake");
        By intakeRow = By.cssSelector("#intake tbody tr[data-failure='" + intakeFailure + "']");
        wait.until(d -> d.findElement(intakeRow).getText().contains("database away"));
        clickAndConfirm(wait, intakeRow, "button.retry");
        wait.until(d -> status(d).contains("moved back to the inbox"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE file_name = 'again.csv'", Long.class) == 1);
        assertThat(dropped).doesNotExist();
        wait.until(d -> d
                .findElements(By.cssSelector("#intake tbody tr[data-failure='" + intakeFailure + "'] button.retry"))
                .isEmpty());
        screenshot("admin-page-intake-failures.png");

        tab(page, "keys");
        page.findElement(By.id("key-supplier")).sendKeys("ACME");
        page.findElement(By.id("key-value")).sendKeys("stuck/page");
        page.findElement(By.cssSelector("#key-lookup button[type=submit]")).click();
        wait.until(d -> d.findElement(By.id("key-result")).getText().contains("IN_PROGRESS"));
        screenshot("admin-page-request-key.png");
        page.findElement(By.id("key-release")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> status(d).contains("released"));
        assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request WHERE idempotency_key = 'stuck/page'"
                + " AND state = 'IN_PROGRESS'", Long.class)).isZero();
    }

    @Test
    void aHostileFileNameIsShownAsText() throws Exception {
        WebDriver page = browser();
        String hostile = "<img src=x onerror=alert(1)>.csv";
        // intake refuses such a name, and records the refusal with the name as it came; a job row with such a
        // name (made before the rule existed) is shown too
        jdbc.update("INSERT INTO intake_failure (supplier, source, file_name, outcome, reason)"
                + " VALUES ('<b>ACME</b>', 'stray', ?, 'rejected', 'the file name contains ''<''')", hostile);
        UUID job = UUID.randomUUID();
        jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, error)"
                + " VALUES (?, 'ACME', 'REJECTED', 'ACME:' || repeat('d', 64), ?, 1, 'test', ?)", job, hostile,
                hostile);
        // the instance that polls an SFTP server, as its lease names it (an instance id is the operator's text)
        jdbc.update("INSERT INTO route_leader (route_id, owner, owner_token, since, renewed_at, expires_at)"
                + " VALUES ('sftp-PAGE', '<b>node-2</b>', gen_random_uuid(), now(), now(), now() + interval '1 hour')"
                + " ON CONFLICT DO NOTHING");

        try {
            WebDriverWait wait = open(page);
            wait.until(d -> d.findElement(By.cssSelector("#sftp-leaders [data-route='sftp-PAGE']")).getText()
                    .equals("PAGE \u2192 <b>node-2</b>"));
            By jobRow = By.cssSelector("#jobs tbody tr[data-job='" + job + "']");
            wait.until(d -> d.findElement(jobRow).getText().contains(hostile));
            tab(page, "intake");
            wait.until(d -> d.findElement(By.id("intake")).getText().contains(hostile));
            tab(page, "jobs");
            wait.until(d -> {
                d.findElement(jobRow).click();
                return true;
            });
            wait.until(d -> d.findElement(By.id("detail-fields")).getText().contains(hostile));
            screenshot("admin-page-hostile-name.png");
            // no element was made of the name, and no script ran
            assertThat(page.findElements(By.tagName("img"))).isEmpty();
            assertThat(page.findElements(By.tagName("b"))).isEmpty();
            assertThat(ExpectedConditions.alertIsPresent().apply(page)).isNull();
        } finally {
            jdbc.update("DELETE FROM route_leader WHERE route_id = 'sftp-PAGE'");
        }
    }

    @Test
    void aSupplierSampleIsPreviewedWithItsFieldsRecordsAndReasonsAndNothingIsStored() throws Exception {
        WebDriver page = browser();
        Path sample = WORK.resolve("preview-sample.csv");
        try (var in = AdminPageBrowserTest.class.getResourceAsStream("/suppliers/hansa-lieferavis.csv")) {
            Files.write(sample, in.readAllBytes());
        }

        WebDriverWait wait = open(page);
        tab(page, "preview");
        page.findElement(By.id("preview-supplier")).sendKeys("HANSA");
        page.findElement(By.id("preview-file")).sendKeys(sample.toAbsolutePath().toString());
        page.findElement(By.cssSelector("#preview-form button[type=submit]")).click();

        wait.until(d -> d.findElements(By.cssSelector("#preview tbody tr")).size() == 5);
        String table = page.findElement(By.id("preview")).getText();
        assertThat(table).contains("menge: 1.200").contains("quantity: 1200").contains("delivery_date: 2026-12-24");
        assertThat(table).contains("Menge: '-1'").contains("QUARANTINED").contains("VALID");
        assertThat(page.findElement(By.id("preview-summary")).getText()).contains("HANSA")
                .contains("3 would be quarantined");
        screenshot("admin-page-preview.png");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class)).isZero();
    }
}
