package org.wharfmq.server.it;

import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The browser of the web console's tests: Debian's headless Chromium driven through its chromedriver (packages
 * {@code chromium} and {@code chromium-driver}, which .ci/run installs). Where there is none, a test that needs it is
 * skipped, saying why, except under CI (the variable {@code CI} set), where its absence fails.
 */
final class Chromium {

    private static final Path BINARY = Path.of(System.getProperty("wharf.chromium", "/usr/bin/chromium"));
    private static final Path DRIVER = Path.of(System.getProperty("wharf.chromedriver", "/usr/bin/chromedriver"));

    /** Whether this machine has Chromium and its driver. */
    static final boolean PRESENT = Files.isExecutable(BINARY) && Files.isExecutable(DRIVER);

    private Chromium() {
    }

    /**
     * A headless Chromium with its profile in {@code profile} and {@code arguments} besides the usual ones; null where
     * there is none (fails under CI).
     */
    static WebDriver start(Path profile, String... arguments) throws IOException {
        if (!PRESENT && System.getenv("CI") != null) {
            fail("CI runs the web console's browser tests, but " + BINARY + " or " + DRIVER + " is missing: "
                    + ".ci/run installs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver).");
        }
        if (!PRESENT) {
            return null; // each test is skipped, saying why (an assumption here would hide them from the test report)
        }
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(DRIVER.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions().setBinary(BINARY.toFile()).addArguments("--headless=new",
                "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,720",
                "--user-data-dir=" + Files.createDirectories(profile));
        options.addArguments(arguments);
        return new ChromeDriver(service, options);
    }

    /** Skips the calling test where there is no Chromium. */
    static void assumePresent() {
        assumeTrue(PRESENT, "No Chromium here (" + BINARY + ", " + DRIVER + "): the web console's browser test is "
                + "skipped. Install Debian's chromium and chromium-driver to run it (CI does).");
    }
}
