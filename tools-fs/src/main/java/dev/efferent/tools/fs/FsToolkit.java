package dev.efferent.tools.fs;

import dev.efferent.tools.spi.Tool;
import dev.efferent.tools.spi.Toolkit;

import java.util.List;

/** The file tools, sharing one set of limits. */
final class FsToolkit implements Toolkit {
    private final List<Tool> tools;

    FsToolkit(FsLimits limits) {
        this.tools = List.of(new ReadFileTool(limits), new WriteFileTool(limits), new EditFileTool(limits),
                new ListDirTool(limits), new SearchFilesTool(limits), new StatTool(limits));
    }

    @Override
    public String name() {
        return "fs";
    }

    @Override
    public List<Tool> tools() {
        return tools;
    }
}
