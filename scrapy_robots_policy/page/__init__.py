"""What a page lets through, and what its items record: no Scrapy.

- :mod:`.policy`: which objects a page's callback yields are dropped, and why (its
  directives, the usage decisions of the purposes declared);
- :mod:`.record`: the compliance record of an item (the robots.txt that allowed its
  page, the page's directives, the usage decisions);
- :mod:`.request`: what was decided of a request before its download (robots.txt's
  verdict, the origin's usage reading), decided once and carried to whoever logs, counts
  or records it.

Above both ``directives/`` and ``usage/`` (usage signals read the directives), so it is a
package of its own rather than a module of either.
"""
