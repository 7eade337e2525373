package dev.ingestor.operations;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.job.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
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
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin page in a real browser (Debian's chromium, driven through chromedriver by Selenium): it shows a
 * failed job with its error, and its "Re-validate" button brings the job to COMPLETED. Screenshots go to
 * target/. Without chromium the test is skipped, unless INGESTOR_REQUIRE_BROWSER is set (as .ci/run does).
 */
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
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).build();
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

    @Test
    void thePageShowsAFailedJobAndReValidateBringsItToCompleted() throws Exception {
        WebDriver page = browser();
        jdbc.execute("""
                CREATE OR REPLACE FUNCTION page_fault() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'item table misconfigured (injected)' USING ERRCODE = '23514'; END $$ LANGUAGE plpgsql""");
        jdbc.execute("CREATE TRIGGER page_fault BEFORE INSERT ON item FOR EACH ROW EXECUTE FUNCTION page_fault()");
        UUID id = producer.requestBodyAndHeaders("direct:intake",
                ("source_id,sku,quantity,delivery_date\nP-1,SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, "ACME", IntakeHeaders.FILE_NAME, "page.csv", IntakeHeaders.SOURCE, "test"),
                IntakeResult.class).job().id();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("FAILED"));

        page.get("http://127.0.0.1:" + port + "/admin");
        page.findElement(By.id("key")).sendKeys(ADMIN_KEY);
        page.findElement(By.cssSelector("#login button[type=submit]")).click();
        WebDriverWait wait = new WebDriverWait(page, Duration.ofSeconds(20));
        By failedRow = By.cssSelector("#failed tbody tr[data-job='" + id + "']");
        WebElement row = wait.until(d -> d.findElements(failedRow).stream().findFirst().orElse(null));
        assertThat(row.getText()).contains("page.csv").contains("processing").contains("item table misconfigured");
        screenshot("admin-page-failed-job.png");

        // the cause is fixed; the operator re-validates from the page
        jdbc.execute("DROP TRIGGER page_fault ON item");
        // the live refresh redraws the table every 3 s: the button is found again right before the click
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(d -> {
            d.findElement(failedRow).findElement(By.cssSelector("button.revalidate")).click();
            return true;
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> state(id).equals("COMPLETED"));
        By jobRow = By.cssSelector("#jobs tbody tr[data-job='" + id + "']");
        wait.until(d -> d.findElements(jobRow).stream().anyMatch(r -> r.getText().contains("COMPLETED")));
        wait.until(d -> d.findElements(failedRow).isEmpty());
        screenshot("admin-page-after-revalidate.png");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(1);
    }
}
