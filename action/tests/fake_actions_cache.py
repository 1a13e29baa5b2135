"""actions/cache's restore and save halves, played for the harness (action_runner.py records a
`uses:` step and calls a handler for it).

Like the cache service, within one scope: an entry is a copy of the saved folder under its key; a
key is written once (a second save of it is refused, as GitHub refuses to reserve it); a restore
takes the entry of the exact key, else, for each line of `restore-keys` in order, the newest entry
whose key starts with it. The outputs are the restore-only action's: `cache-primary-key` always,
`cache-hit` and `cache-matched-key` when something was restored.
"""

import os
import shutil

RESTORE = "actions/cache/restore"
SAVE = "actions/cache/save"


class FakeActionsCache:
    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.entries = []  # [key], oldest first
        self.log = []  # ("restore", key, matched) / ("save", key, "saved" | "refused" | "empty")

    def handlers(self):
        return {RESTORE: self.restore, SAVE: self.save}

    def _folder(self, key):
        return os.path.join(self.root, f"entry-{self.entries.index(key)}")

    def add(self, key, files):
        """An entry saved by some other run: `files` maps relative paths to bytes."""
        self.entries.append(key)
        for name, data in files.items():
            path = os.path.join(self._folder(key), name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)

    def match(self, key, restore_keys):
        if key in self.entries:
            return key
        for prefix in restore_keys:
            found = [k for k in self.entries if k.startswith(prefix)]
            if found:
                return found[-1]
        return None

    def restore(self, with_values):
        key = with_values["key"]
        restore_keys = [line.strip() for line in with_values.get("restore-keys", "").splitlines() if line.strip()]
        matched = self.match(key, restore_keys)
        self.log.append(("restore", key, matched))
        outputs = {"cache-primary-key": key}
        if matched is None:
            return outputs
        shutil.copytree(self._folder(matched), with_values["path"], dirs_exist_ok=True)
        outputs.update({"cache-hit": "true" if matched == key else "false", "cache-matched-key": matched})
        return outputs

    def save(self, with_values):
        key = with_values["key"]
        path = with_values["path"]
        if not key or key in self.entries:
            self.log.append(("save", key, "refused"))
        elif not os.path.isdir(path) or not os.listdir(path):
            self.log.append(("save", key, "empty"))
        else:
            self.entries.append(key)
            shutil.copytree(path, self._folder(key))
            self.log.append(("save", key, "saved"))
        return {}
