package org.wharfmq.server.it;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import javax.jms.Connection;
import javax.jms.MessageConsumer;
import javax.jms.Session;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The web console in a real browser: Debian's headless Chromium driven through its chromedriver (packages
 * {@code chromium} and {@code chromium-driver}, which .ci/run installs). An admin logs in, sees a queue's depth after
 * messages are sent with the JMS client, purges it through the page's button and its confirmation, and the server
 * holds none; a message body that is markup is shown as text; a monitor sees the queues without the actions, and the page's own scripts cannot POST without the
 * console's header; an admin defines a receiver channel, stops it (the page says why it is stopped), resets its
 * sequence number and deletes it; on a replicated queue manager (members in this JVM) an admin adds a member and
 * deletes it. Skipped, saying why, where there is no Chromium, except under CI (the variable
 * {@code CI} set), where its absence fails. Leaves screenshots in target/console.png (docs/images/console.png is one),
 * target/console-channels.png and target/console-members.png.
 */
class ConsoleBrowserTest {

    /** How long the page may take to show a change: it refreshes every 2 s. */
    private static final Duration PAGE_WAIT = Duration.ofSeconds(15);

    /** A message body that would be markup, and run script, if the page wrote it as HTML. */
    private static final String MARKUP = "<img src=x onerror=\"document.title='owned'\"><b id=\"injected\">bold</b>";

    @TempDir
    static Path dir;

    private static ConsoleServer server;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws Exception {
        if (Chromium.PRESENT) {
            server = new ConsoleServer(dir);
        }
        browser = Chromium.start(dir.resolve("chromium"));
    }

    @BeforeEach
    void chromiumIsHere() {
        Chromium.assumePresent();
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anAdminSeesAQueuesDepthAndPurgesIt() throws Exception {
        server.send("CONSOLE.ORDERS", 2);
        server.send("CONSOLE.ORDERS", MARKUP);
        server.send("CONSOLE.INVOICES", 1);
        open("root");
        waitForDepth("CONSOLE.ORDERS", "3");

        row("CONSOLE.ORDERS").findElement(By.cssSelector("button.browse")).click();
        wait(PAGE_WAIT).until(b -> b.findElements(By.cssSelector("#browse-messages .message")).size() == 3);
        List<WebElement> bodies = browser.findElements(By.cssSelector("#browse-messages pre"));
        assertEquals(MARKUP, bodies.get(2).getText(), "a body is shown as the text it is");
        assertEquals(0L, script("return document.querySelectorAll('#browse-messages img, #injected').length"),
                "and never becomes markup");
        browser.findElement(By.id("browse-close")).click();

        try (Connection connection = server.connect("root")) { // traffic over a few refreshes: the charts draw rates
            connection.start();
            Session session = connection.createSession(false, Session.AUTO_ACKNOWLEDGE);
            MessageConsumer consumer = session.createConsumer(session.createQueue("CONSOLE.INVOICES"));
            for (int i = 0; i < 3; i++) {
                String refreshed = lastRefresh();
                server.send("CONSOLE.INVOICES", 20 * (i + 1));
                for (int received = 0; received < 10; received++) {
                    assertNotNull(consumer.receive(10_000));
                }
                waitForRefreshAfter(refreshed);
            }
            waitForRefreshAfter(lastRefresh());
            assertTrue(((Number) script("return document.querySelectorAll('#queues td.chart canvas').length"))
                    .intValue() >= 2, "uPlot drew each queue's chart (its script loaded under the page's policy)");
            screenshot("console.png");
        }

        row("CONSOLE.ORDERS").findElement(By.cssSelector("button.purge")).click();
        WebElement confirm = wait(PAGE_WAIT).until(ExpectedConditions.elementToBeClickable(By.id("confirm-ok")));
        assertTrue(browser.findElement(By.id("confirm-text")).getText().startsWith("Purge queue CONSOLE.ORDERS?"));
        confirm.click();
        waitForDepth("CONSOLE.ORDERS", "0");
        assertEquals("Purged 3 messages from CONSOLE.ORDERS.", browser.findElement(By.id("status")).getText());
        assertEquals(0, server.browse("CONSOLE.ORDERS"), "the server holds none");
        assertEquals(1 + 20 + 40 + 60 - 30, server.browse("CONSOLE.INVOICES"), "the other queue is untouched");
    }

    @Test
    void aMonitorSeesNoActionsAndThePageCannotPostWithoutTheConsolesHeader() throws Exception {
        server.send("CONSOLE.WATCHED", 2);
        open("alice");
        waitForDepth("CONSOLE.WATCHED", "2");
        assertFalse(row("CONSOLE.WATCHED").findElement(By.cssSelector("button.purge")).isDisplayed(),
                "a monitor is not offered the purge button");
        assertEquals("alice (monitor)", browser.findElement(By.id("who")).getText());

        showTab("connections"); // each tab shows what its command answers
        wait(PAGE_WAIT).until(b -> !b.findElements(By.cssSelector("#connections tbody tr")).isEmpty());
        showTab("topics");
        wait(PAGE_WAIT).until(b -> !b.findElement(By.id("topics")).getText().isEmpty());
        showTab("flows");
        wait(PAGE_WAIT).until(b -> b.findElement(By.id("flows")).getText().startsWith("No flow statistics: Unknown "
                + "admin command 'stats'"));
        showTab("server");
        wait(PAGE_WAIT).until(b -> b.findElement(By.id("server")).getText().contains("Journal"));
        assertFalse(browser.findElement(By.id("status")).isDisplayed(), "no error was reported");

        // what a forged request looks like from the browser: the cached login, but no X-Wharf-Console header
        open("root");
        Object status = ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch(location.origin + '/api/clear-queue', {method: 'POST', body: JSON.stringify({queue: 'CONSOLE.WATCHED'})})
                    .then(r => done(r.status), e => done(String(e)));""");
        assertEquals(403L, status);
        assertEquals(2, server.browse("CONSOLE.WATCHED"));
    }

    @Test
    void anAdminDefinesStopsResetsAndDeletesAChannelFromThePage() throws Exception {
        open("root");
        showTab("channels");
        assertEquals("Not in a publish/subscribe hierarchy.", browser.findElement(By.id("hierarchy-summary")).getText());
        WebElement define = browser.findElement(By.id("define-channel"));
        define.findElement(By.name("channel")).sendKeys("BROWSER.IN");
        new org.openqa.selenium.support.ui.Select(define.findElement(By.name("type"))).selectByValue("receiver");
        define.findElement(By.name("partnerQueueManager")).sendKeys("QM9");
        define.findElement(By.cssSelector("button[type='submit']")).click();
        waitForChannel("BROWSER.IN", 3, "INACTIVE");
        assertEquals("Defined receiver channel BROWSER.IN.", browser.findElement(By.id("status")).getText());

        clickChannelButton("BROWSER.IN", "Stop");
        wait(PAGE_WAIT).until(ExpectedConditions.elementToBeClickable(By.id("confirm-ok"))).click();
        waitForChannel("BROWSER.IN", 3, "STOPPED");
        assertEquals("Channel BROWSER.IN stopped (its partner's session ends; the sender retries until it is"
                + " started).", browser.findElement(By.id("status")).getText(), "the stop's description");
        // the table is drawn again as the status refreshes: the cell is read again when it was replaced meanwhile
        String reason = wait(PAGE_WAIT).ignoring(StaleElementReferenceException.class).until(d ->
                d.findElement(By.cssSelector("#channels tr[data-channel='BROWSER.IN'] td.reason")).getText());
        assertTrue(reason.startsWith("an operator stopped it; 'wharf admin start channel BROWSER.IN' starts it"),
                reason);

        clickChannelButton("BROWSER.IN", "Reset");
        WebElement sequence = wait(PAGE_WAIT).until(ExpectedConditions.elementToBeClickable(
                By.cssSelector("#channel-fields input[name='sequence']")));
        sequence.sendKeys("7");
        browser.findElement(By.id("channel-ok")).click();
        waitForChannel("BROWSER.IN", 11, "7");
        screenshot("console-channels.png");
        assertTrue(browser.findElement(By.id("status")).getText().startsWith("Channel BROWSER.IN: sequence number"
                + " reset to 7 (was 0)"), browser.findElement(By.id("status")).getText());

        clickChannelButton("BROWSER.IN", "Delete");
        wait(PAGE_WAIT).until(ExpectedConditions.elementToBeClickable(By.id("confirm-ok"))).click();
        wait(PAGE_WAIT).until(b -> b.findElements(By.cssSelector("#channels tr[data-channel='BROWSER.IN']")).isEmpty());
        assertEquals("Channel BROWSER.IN deleted.", browser.findElement(By.id("status")).getText());
        assertEquals("[]", server.get("/api/display-channel", "root"), "the server has no channel left");
    }

    /**
     * The members of a replicated queue manager (three in this JVM, the console on the active one's queue manager):
     * each replica's row has its two buttons, the active member's none (it can neither remove nor hand the role to
     * itself); an admin adds a fourth member, started first on the grown list, from the page's form, and sees it in
     * sync; it is stopped and deleted through its row's button and its confirmation, and the server no longer has it.
     * (Switchover's button posts {@code switchover}, which ReplicatedFailoverTest runs: it would end this member.)
     */
    @Test
    void anAdminAddsAndDeletesAMemberOfAReplicatedQueueManagerFromThePage() throws Exception {
        try (InProcessGroup group = new InProcessGroup(Files.createDirectories(dir.resolve("group")), "a", "b", "c");
             ConsoleServer replicated = new ConsoleServer(Files.createDirectories(dir.resolve("replicated")),
                     group.awaitElected())) {
            open(replicated, "root");
            showTab("server");
            String active = replication(replicated).path("active").asText();
            wait(PAGE_WAIT).until(b -> b.findElements(By.cssSelector("#members tbody tr")).size() == 3);
            wait(PAGE_WAIT).ignoring(StaleElementReferenceException.class).until(b -> { // read again if redrawn
                for (String id : List.of("a", "b", "c")) {
                    assertEquals(id.equals(active) ? List.of() : List.of("Switch over to", "Delete"),
                            b.findElements(By.cssSelector("#members tr[data-member='" + id + "'] button")).stream()
                                    .map(WebElement::getText).toList(), "member " + id + "'s buttons (" + active
                                    + " is active)");
                }
                return true;
            });

            org.wharfmq.server.replication.Member d = group.newMember("d");
            group.join(d);
            WebElement define = browser.findElement(By.id("define-member"));
            define.findElement(By.name("member")).sendKeys("d");
            define.findElement(By.name("address")).sendKeys(d.address());
            define.findElement(By.cssSelector("button[type='submit']")).click();
            wait(Duration.ofSeconds(60)).until(ExpectedConditions.textToBe(By.cssSelector(
                    "#members tr[data-member='d'] td:nth-child(3)"), "in sync"));
            assertTrue(browser.findElement(By.id("status")).getText().startsWith("Member d (" + d.address()
                    + ") joined replication group"), browser.findElement(By.id("status")).getText());
            script("document.getElementById('replication').scrollIntoView()");
            screenshot("console-members.png");

            group.stop("d");
            clickMemberButton("d", "Delete");
            wait(PAGE_WAIT).until(ExpectedConditions.elementToBeClickable(By.id("confirm-ok"))).click();
            wait(Duration.ofSeconds(60)).until(b -> b.findElements(By.cssSelector("#members tr[data-member='d']"))
                    .isEmpty());
            assertTrue(browser.findElement(By.id("status")).getText().startsWith("Member d left replication group"),
                    browser.findElement(By.id("status")).getText());
            assertFalse(replication(replicated).path("members").has("d"), "the server still has member d");
        }
    }

    /** The replication part of what the console's API answers for display-server. */
    private static com.fasterxml.jackson.databind.JsonNode replication(ConsoleServer console) throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(console.get("/api/display-server", "root"))
                .path("replication");
    }

    private static void clickMemberButton(String member, String text) {
        click(By.xpath("//table[@id='members']//tr[@data-member='" + member + "']//button[text()='" + text + "']"));
    }

    private static void clickChannelButton(String channel, String text) {
        click(By.xpath("//table[@id='channels']//tr[@data-channel='" + channel + "']//button[text()='" + text + "']"));
    }

    /**
     * Clicks what {@code button} finds, found again when the page redrew its table between the finding and the
     * click (the console refreshes its tables on a timer, so a row found a moment ago may be gone).
     */
    private static void click(By button) {
        wait(PAGE_WAIT).ignoring(StaleElementReferenceException.class).until(b -> {
            b.findElement(button).click();
            return true;
        });
    }

    /** Waits until the {@code column}th cell (from 1) of channel {@code channel}'s row shows {@code text}. */
    private static void waitForChannel(String channel, int column, String text) {
        wait(PAGE_WAIT).until(ExpectedConditions.textToBe(By.cssSelector("#channels tr[data-channel='" + channel
                + "'] td:nth-child(" + column + ")"), text));
    }

    /** Opens the console as {@code user}, the password in the URL (Chromium keeps it for the page's requests). */
    private static void open(String user) {
        open(server, user);
    }

    private static void open(ConsoleServer console, String user) {
        browser.get("http://" + user + ":" + ConsoleServer.password(user) + "@127.0.0.1:" + console.httpPort() + "/");
        wait(PAGE_WAIT).until(b -> !lastRefresh().isEmpty());
    }

    /** Opens a tab and waits for its first refresh. */
    private static void showTab(String tab) {
        String refreshed = lastRefresh();
        browser.findElement(By.cssSelector("#tabs button[data-tab='" + tab + "']")).click();
        waitForRefreshAfter(refreshed);
    }

    private static WebElement row(String queue) {
        return browser.findElement(By.cssSelector("#queues tr[data-queue='" + queue + "']"));
    }

    private static void waitForDepth(String queue, String depth) {
        wait(PAGE_WAIT).until(ExpectedConditions.textToBe(By.cssSelector("#queues tr[data-queue='" + queue
                + "'] td.depth"), depth));
    }

    /** When the page last finished a refresh (its body's data-refreshed), or empty before the first. */
    private static String lastRefresh() {
        Object refreshed = script("return document.body.dataset.refreshed || ''");
        return refreshed.toString();
    }

    private static void waitForRefreshAfter(String refreshed) {
        wait(PAGE_WAIT).until(b -> !lastRefresh().equals(refreshed));
    }

    private static Object script(String script) {
        return ((JavascriptExecutor) browser).executeScript(script);
    }

    private static WebDriverWait wait(Duration timeout) {
        return new WebDriverWait(browser, timeout);
    }

    /** Leaves what the browser shows in target/{@code file}. */
    private static void screenshot(String file) throws Exception {
        Path shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, Path.of("target", file), StandardCopyOption.REPLACE_EXISTING);
    }
}
