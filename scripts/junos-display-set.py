#!/usr/bin/env python3
"""Print a Junos configuration in curly-brace form the way `show configuration | display set`
prints it: one `set` line per leaf statement (a `[ a b ]` list gives one line per member), a
`deactivate` line after each `inactive:` statement or block, comments dropped.

Used to give the emulated Junos switch of the collection tests the set form of the same
configuration the file fixtures hold in curly-brace form.  Usage: junos-display-set.py FILE
"""
import re
import sys

TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{};\[\]]|[^\s{};\[\]"]+')


def tokens(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    for line in text.splitlines():
        line = re.sub(r"(^|\s)##?\s.*$|(^|\s)#$", "", line)
        yield from TOKEN.findall(line)


def display_set(text):
    out, path, words, inactive_stack = [], [], [], []
    inactive = False
    toks = list(tokens(text))
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == "inactive:":
            inactive = True
        elif t == "{":
            path.append(" ".join(words))
            inactive_stack.append(inactive)
            # An empty block is a leaf.
            if toks[i + 1] == "}":
                out.append("set " + " ".join(path))
            if inactive:
                out.append("deactivate " + " ".join(path))
            words, inactive = [], False
        elif t == "}":
            path.pop()
            inactive_stack.pop()
        elif t == ";":
            head, members, in_list = [], [], False
            for w in words:
                if w == "[":
                    in_list = True
                elif w == "]":
                    in_list = False
                elif in_list:
                    members.append(w)
                else:
                    head.append(w)
            stmt = " ".join(path + head)
            for m in members or [None]:
                out.append("set " + stmt + ("" if m is None else " " + m))
            if inactive:
                out.append("deactivate " + stmt)
            words, inactive = [], False
        else:
            words.append(t)
        i += 1
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        sys.stdout.write(display_set(f.read()))
