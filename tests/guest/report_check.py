#!/usr/bin/env python3
# report_check.py PREFIX...: compare reports' two forms. For each PREFIX,
# PREFIX.t1 and PREFIX.t2 are the text form read just before and just after
# PREFIX.json. One line per PREFIX: "PREFIX layout json_rows text_rows
# columns_ok", where text_rows counts the text form's rows by its layout
# (table: lines after the header; record: 1 if it has "name value" lines,
# and those names must be the JSON's columns; lines: one per line, two for
# inversions), taken from whichever text read has as many rows as the JSON
# (rows come and go between reads), and columns_ok says whether the text
# header (table) or keys (record) name the JSON's columns in order and the
# document has its shape. "PREFIX json-error ..." if the JSON does not parse.
# One process for all reports: a Python start costs seconds under emulation.
import json, sys

NEED = {'schema', 'feature', 'report', 'layout', 'columns', 'units', 'meta',
        'notes', 'rows', 'trailer'}


def text_rows(path, doc):
    with open(path, encoding='latin-1') as f:
        text = [l for l in f.read().split('\n') if l and not l.startswith('#')]
    cols = doc['columns']
    lay = doc['layout']
    if lay == 'table':
        return (len(text) - 1 if text else 0), bool(text) and text[0].split() == cols
    if lay == 'record':
        return (1 if text else 0), ([l.split()[0] for l in text] == cols if text else True)
    return (len(text) // 2 if doc['report'] == 'inversions' else len(text)), True


for p in sys.argv[1:]:
    try:
        with open(p + '.json', encoding='utf-8') as f:
            doc = json.load(f)
    except Exception as e:
        print(p, 'json-error', str(e).replace(' ', '_'))
        continue
    cols = doc.get('columns', [])
    shape = NEED <= set(doc) and all(len(r) == len(cols) for r in doc['rows']) \
        and all(u in cols for u in doc['units'])
    n1, ok1 = text_rows(p + '.t1', doc)
    n2, ok2 = text_rows(p + '.t2', doc)
    n, cok = (n2, ok2) if n1 != len(doc['rows']) and n2 == len(doc['rows']) else (n1, ok1)
    print(p, doc['layout'], len(doc['rows']), n, 'yes' if cok and shape else 'no')
