#!/usr/bin/env python3
# report_check.py TEXT_FILE JSON_FILE: compare one report's two forms, read
# back to back by the caller. Prints "layout json_rows text_rows columns_ok"
# where text_rows counts the text form's rows by its layout (table: lines
# after the header; record: 1 if it has "name value" lines, and those names
# must be the JSON's columns; lines: one per line, two for inversions) and
# columns_ok says whether the text header (table) or keys (record) name the
# JSON's columns in order. Exit 2 if the JSON does not parse.
import json, sys

text = [l for l in open(sys.argv[1], encoding='latin-1').read().split('\n') if l and not l.startswith('#')]
try:
    doc = json.load(open(sys.argv[2], encoding='utf-8'))
except Exception as e:
    print('json does not parse:', e)
    sys.exit(2)
cols = doc['columns']
need = {'schema', 'feature', 'report', 'layout', 'columns', 'units', 'meta', 'notes', 'rows', 'trailer'}
shape = need <= set(doc) and all(len(r) == len(cols) for r in doc['rows']) \
    and all(u in cols for u in doc['units'])
lay = doc['layout']
if lay == 'table':
    cols_ok = bool(text) and text[0].split() == cols
    n = len(text) - 1 if text else 0
elif lay == 'record':
    cols_ok = [l.split()[0] for l in text] == cols if text else True
    n = 1 if text else 0
else:
    cols_ok = True
    n = len(text) // 2 if doc['report'] == 'inversions' else len(text)
print(lay, len(doc['rows']), n, 'yes' if cols_ok and shape else 'no')
