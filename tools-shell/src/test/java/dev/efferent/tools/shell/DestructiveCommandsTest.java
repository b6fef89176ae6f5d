package dev.efferent.tools.shell;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DestructiveCommandsTest {

    @ParameterizedTest
    @CsvSource(delimiterString = "=>", value = {
            "rm -rf /                              => it deletes '/' recursively: the root or home directory",
            "rm -fr /                              => it deletes '/' recursively: the root or home directory",
            "rm -r -f /                            => it deletes '/' recursively: the root or home directory",
            "rm -Rf /*                             => it deletes '/*' recursively: the root or home directory",
            "rm --recursive --force /              => it deletes '/' recursively: the root or home directory",
            "sudo rm -rf /                         => it deletes '/' recursively: the root or home directory",
            "rm -rf \"/\"                          => it deletes '/' recursively: the root or home directory",
            "rm -rf ~                              => it deletes '~' recursively: the root or home directory",
            "rm -rf $HOME                          => it deletes '$HOME' recursively: the root or home directory",
            "rm -rf / --no-preserve-root           => it asks rm not to protect the root directory",
            "cd /tmp && rm -rf /usr                => it deletes the system directory '/usr' recursively",
            "/bin/rm -rf /etc/                     => it deletes the system directory '/etc/' recursively",
            "mkfs.ext4 /dev/sda1                   => it creates a file system, erasing what was there",
            "mkfs -t ext4 /dev/sdb                 => it creates a file system, erasing what was there",
            "shutdown -h now                       => it shuts down or restarts the machine",
            "sudo reboot                           => it shuts down or restarts the machine",
            "poweroff                              => it shuts down or restarts the machine",
            "halt                                  => it shuts down or restarts the machine",
            "systemctl reboot                      => it shuts down or restarts the machine",
            "init 0                                => it shuts down or restarts the machine",
            "dd if=/dev/zero of=/dev/sda bs=1M     => it writes directly to the device /dev/sda, which destroys its data",
            "dd if=image.iso of=/dev/nvme0n1       => it writes directly to the device /dev/nvme0n1, which destroys its data",
            ":(){ :|:& };:                         => it is a fork bomb, which exhausts the machine's processes",
            "bomb() { bomb | bomb & }; bomb        => it is a fork bomb, which exhausts the machine's processes",
            "echo hi > /dev/sda                    => it redirects output onto a raw disk device, which destroys its data",
            "cat /dev/urandom >> /dev/nvme0n1      => it redirects output onto a raw disk device, which destroys its data",
            "cp disk.img /dev/sdb                  => it writes to a raw disk device, which destroys its data",
            "wipefs -a /dev/sda                    => it writes to a raw disk device, which destroys its data",
            "chmod -R 777 /                        => it changes permissions or owners recursively from the root directory",
    })
    void refusesDestructiveCommandsWithTheReason(String command, String reason) {
        assertEquals(reason, DestructiveCommands.check(command.strip()).orElseThrow(
                () -> new AssertionError("not refused: " + command)));
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "rm -rf ./build", "rm -rf build/", "rm -r /tmp/efferent-test", "rm file.txt", "rm -f /etc/hosts.bak",
            "ls -la /", "echo reboot", "grep shutdown notes.txt", "dd if=/dev/zero of=./blank.img bs=1k count=1",
            "dd if=/dev/sda of=/dev/null", "ls > /dev/null", "cat notes.txt | tee copy.txt", "make clean && make",
            "chmod -R 755 ./scripts", "find . -name '*.tmp' -delete"})
    void allowsOrdinaryCommands(String command) {
        assertTrue(DestructiveCommands.check(command).isEmpty(), () -> "refused: " + command + " — "
                + DestructiveCommands.check(command).orElse(""));
    }

    @Test
    void aLongCommandIsCheckedInLinearTime() {
        // 256 KiB each, twice what Linux passes in one argument. The earlier patterns backtracked quadratically on
        // these: one long word took over ten minutes, so run_shell hung before its timeout even started.
        int n = 256 * 1024;
        List<String> commands = List.of("x".repeat(n), "echo " + "f(){".repeat(n / 4), "f(){ f" + " ".repeat(n),
                "a()".repeat(n / 3), "rm -rf " + "/".repeat(n) + "x", "rm -r " + "/".repeat(n) + "./x",
                "echo " + "> ".repeat(n / 2));
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> commands.forEach(DestructiveCommands::check));
        for (String bomb : List.of("x".repeat(n) + "; :(){ :|:& };:", "bash -c ':(){ :|:& };:'", "`:(){ :|:& };:`",
                "echo $(f(){ f|f& };f)")) {
            assertEquals("it is a fork bomb, which exhausts the machine's processes",
                    DestructiveCommands.check(bomb).orElseThrow(() -> new AssertionError("not refused: " + bomb)));
        }
    }
}
