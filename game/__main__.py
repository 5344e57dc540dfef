from ropework.cli import main

raise SystemExit(main())
